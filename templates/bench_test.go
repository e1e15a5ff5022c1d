package templates

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/dave/jennifer/jen"

	spechcl "github.com/toolgen-dev/toolgen/hcl"
	"github.com/toolgen-dev/toolgen/hcl/ir"
)

// benchSpec is a synthetic IR for the switch benchmarks in
// testdata/bench: three agents whose allowed lists hold 8, 64 and 512
// exact names, and a workflow table of 4 workflows × 4 roles × 8 steps.
func benchSpec() *ir.Spec {
	spec := &ir.Spec{Dir: "testdata/bench", Package: "bench", Separator: "__"}
	for _, size := range []struct {
		name string
		n    int
	}{{"small", 8}, {"medium", 64}, {"large", 512}} {
		a := &ir.Agent{Name: size.name, GoName: ir.GoName(size.name), AllowedSet: true, Allow: &ir.AllowSet{}}
		for i := range size.n {
			a.Allowed = append(a.Allowed, ir.AllowEntry{Pattern: benchToolName(i)})
			a.Allow.Names = append(a.Allow.Names, benchToolName(i))
		}
		slices.Sort(a.Allow.Names)
		spec.Agents = append(spec.Agents, a)
	}
	for w := range 4 {
		wf := &ir.Workflow{Name: fmt.Sprintf("workflow_%d", w), GoName: fmt.Sprintf("Workflow%d", w)}
		for r := range 4 {
			role := &ir.Role{Name: fmt.Sprintf("role_%d", r)}
			for s := range 8 {
				role.Steps = append(role.Steps, &ir.Step{
					Name:    fmt.Sprintf("step_%d", s),
					Bundles: []string{fmt.Sprintf("bundle_%d", (w+r+s)%10), fmt.Sprintf("bundle_%d", (w*r+s)%10+10)},
				})
			}
			wf.Roles = append(wf.Roles, role)
		}
		spec.Workflows = append(spec.Workflows, wf)
	}
	return spec
}

var benchServers = []string{"github", "slack", "jira", "docs", "files"}
var benchVerbs = []string{"search", "get", "list", "create", "update", "delete", "read"}

func benchToolName(i int) string {
	return fmt.Sprintf("%s__%s_item_%d", benchServers[i%len(benchServers)], benchVerbs[i%len(benchVerbs)], i)
}

// TestBenchPackageUpToDate keeps testdata/bench/routes_gen.go (the
// emitter's output for benchSpec) and its data file current; -update
// rewrites them.
func TestBenchPackageUpToDate(t *testing.T) {
	spec := benchSpec()
	routesSrc, err := emitRoutes(spec, nil, "templates/testdata/bench")
	if err != nil {
		t.Fatal(err)
	}
	// The baselines (map, sorted slice, nested maps) are built from these.
	f := jen.NewFile("bench")
	f.HeaderComment(Header[3:])
	f.HeaderComment("source: templates/bench_test.go")
	f.Comment("allowNames are the exact names of each agent's allow check.")
	f.Var().Id("allowNames").Op("=").Map(jen.String()).Index().String().Values(jen.DictFunc(func(d jen.Dict) {
		for _, a := range spec.Agents {
			var names []jen.Code
			for _, n := range a.Allow.Names {
				names = append(names, jen.Lit(n))
			}
			d[jen.Lit(a.Name)] = jen.Values(names...)
		}
	}))
	f.Comment("routeTable lists every workflow step with its bundles.")
	f.Var().Id("routeTable").Op("=").Index().Struct(jen.Id("workflow, role, step").String(), jen.Id("bundles").Index().String()).ValuesFunc(func(g *jen.Group) {
		for _, r := range routes(spec) {
			var bs []jen.Code
			for _, b := range r.Bundles {
				bs = append(bs, jen.Lit(b))
			}
			g.Line().Values(jen.Lit(r.Workflow), jen.Lit(r.Role), jen.Lit(r.Step), jen.Index().String().Values(bs...))
		}
		g.Line()
	})
	data, err := render(f)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string][]byte{"routes_gen.go": routesSrc, "data_gen_test.go": data}
	for name, b := range want {
		path := filepath.Join("testdata", "bench", name)
		if *update {
			if err := os.WriteFile(path, b, 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if got, err := os.ReadFile(path); err != nil || !bytes.Equal(got, b) {
			t.Errorf("%s is stale: go test ./templates -run TestBenchPackageUpToDate -update", path)
		}
	}
}

// syntheticSpec writes an HCL spec of nTools tools (half builtin, half
// REST with a schema) and nAgents agents (half with an allowed list of
// names and a glob, half allowing everything in use), with bundles and a
// workflow, as the files of a spec directory.
func syntheticSpec(nTools, nAgents int) map[string][]byte {
	var tools, agents strings.Builder
	tools.WriteString("toolgen {\n  package = \"synthetic\"\n}\n\npolicy \"ro\" {\n  builtin       = \"fs_read\"\n  allowed_paths = [\".\"]\n}\n")
	name := func(i int) string {
		return fmt.Sprintf("%s_%s_%05d", benchServers[i%len(benchServers)], benchVerbs[i%len(benchVerbs)], i)
	}
	for i := range nTools {
		fmt.Fprintf(&tools, "\ntool %q {\n  description = \"%s the %s records of project %d, filtered by owner and status.\"\n  category    = %q\n  keywords    = [\"item%d\", \"record\"]\n",
			name(i), strings.ToUpper(benchVerbs[i%len(benchVerbs)][:1])+benchVerbs[i%len(benchVerbs)][1:], benchServers[i%len(benchServers)], i, benchServers[i%len(benchServers)], i%100)
		if i%2 == 0 {
			tools.WriteString("  policy      = policy.ro\n}\n")
			continue
		}
		fmt.Fprintf(&tools, "  rest {\n    method = \"GET\"\n    url    = \"https://api.example.com/v1/items/{id}\"\n  }\n  input_schema = {\n    type       = \"object\"\n    properties = { id = { type = \"string\" }, owner = { type = \"string\" } }\n    required   = [\"id\"]\n  }\n}\n")
	}
	nBundles := max(nTools/100, 1)
	for b := range nBundles {
		fmt.Fprintf(&agents, "bundle \"b%04d\" {\n  tools = [", b)
		for k := range 10 {
			if k > 0 {
				agents.WriteString(", ")
			}
			fmt.Fprintf(&agents, "tool.%s", name((b*10+k)%nTools))
		}
		agents.WriteString("]\n}\n\n")
	}
	for a := range nAgents {
		fmt.Fprintf(&agents, "agent \"a%05d\" {\n  description = \"Agent %d.\"\n  tools {\n    use = [bundle.b%04d, tool.%s, tool.%s, %q]\n",
			a, a, a%nBundles, name((a*7)%nTools), name((a*13+1)%nTools), fmt.Sprintf("%s_%s_0%d*", benchServers[a%5], benchVerbs[a%5], a%10))
		if a%2 == 0 {
			agents.WriteString("    allowed = [")
			for k := range 5 {
				fmt.Fprintf(&agents, "%q, ", name((a*10+k)%nTools))
			}
			agents.WriteString("\"files_*\"]\n")
		}
		agents.WriteString("  }\n}\n\n")
	}
	agents.WriteString("workflow \"release\" {\n  role \"dev\" {\n")
	for s := range min(nBundles, 50) {
		fmt.Fprintf(&agents, "    step \"s%02d\" { bundles = [bundle.b%04d] }\n", s, s)
	}
	agents.WriteString("  }\n}\n")
	return map[string][]byte{"tools.hcl": []byte(tools.String()), "agents.hcl": []byte(agents.String())}
}

// writeSynthetic writes the synthetic spec under dir.
func writeSynthetic(tb testing.TB, dir string, nTools, nAgents int) {
	tb.Helper()
	for name, b := range syntheticSpec(nTools, nAgents) {
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			tb.Fatal(err)
		}
	}
}

var syntheticDir = os.Getenv("TOOLGEN_SYNTHETIC_DIR")

// TestWriteSynthetic writes the 10k-tool spec for timing the CLI with
// /usr/bin/time: TOOLGEN_SYNTHETIC_DIR=/tmp/syn go test ./templates -run TestWriteSynthetic
func TestWriteSynthetic(t *testing.T) {
	if syntheticDir == "" {
		t.Skip("set TOOLGEN_SYNTHETIC_DIR")
	}
	if err := os.MkdirAll(syntheticDir, 0o755); err != nil {
		t.Fatal(err)
	}
	writeSynthetic(t, syntheticDir, 10000, 1000)
}

// BenchmarkGenerate runs load + generate on the synthetic spec: 10,000
// tools and 1,000 agents (DESIGN §7: ≤ 2 s). BenchmarkGenerateSmall is the
// baseline, a spec a hundred times smaller.
func BenchmarkGenerate(b *testing.B)      { benchGenerate(b, 10000, 1000) }
func BenchmarkGenerateSmall(b *testing.B) { benchGenerate(b, 100, 10) }

func benchGenerate(b *testing.B, nTools, nAgents int) {
	dir := b.TempDir()
	writeSynthetic(b, dir, nTools, nAgents)
	var peak uint64
	var outBytes int
	for b.Loop() {
		spec, diags := spechcl.Load(dir)
		if diags.HasErrors() {
			b.Fatal(diags)
		}
		files, diags := Generate(spec)
		if diags.HasErrors() {
			b.Fatal(diags)
		}
		outBytes = 0
		for _, f := range files {
			outBytes += len(f)
		}
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		peak = max(peak, ms.HeapInuse)
	}
	b.ReportMetric(float64(peak)/(1<<20), "peak-heap-MiB")
	b.ReportMetric(float64(outBytes)/(1<<20), "out-MiB")
}
