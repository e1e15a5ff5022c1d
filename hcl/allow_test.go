package hcl

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/hashicorp/hcl/v2"

	"github.com/toolgen-dev/toolgen/hcl/ir"
)

// TestAllowSet: the loader decides what each agent's tools.allowed admits
// (the generated check prints it as it is); an agent without
// tools.allowed gets no set, since the runtime allows everything in use.
func TestAllowSet(t *testing.T) {
	var src strings.Builder
	src.WriteString("policy \"p\" {\n  builtin       = \"fs_read\"\n  allowed_paths = [\".\"]\n}\n")
	tool := func(name string) { fmt.Fprintf(&src, "tool %q {\n  policy = policy.p\n}\n", name) }
	for i := range maxExpand + 1 {
		tool(fmt.Sprintf("many_%02d", i))
	}
	for _, n := range []string{"few_a", "few_b", "read_file", "other"} {
		tool(n)
	}
	src.WriteString(`
agent "everything" {
  tools { use = [tool.read_file, tool.other] }
}
agent "nothing" {
  tools {
    use     = [tool.read_file]
    allowed = []
  }
}
agent "mixed" {
  tools {
    use     = [tool.read_file, "few_*", "many_*"]
    allowed = ["read", "few_*", "many_*", tool.other]
    aliases = { read = "read_file" }
  }
}
`)
	spec, _, diags := LoadFiles("spec", map[string][]byte{"main.hcl": []byte(src.String())})
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	if a := spec.Agent("everything"); a.Allow != nil {
		t.Errorf("everything: allow set %+v without tools.allowed", a.Allow)
	}
	if diff := cmp.Diff(&ir.AllowSet{}, spec.Agent("nothing").Allow); diff != "" {
		t.Errorf("nothing (allowed = []) (-want +got):\n%s", diff)
	}
	// "read" is asked about as written and leads to read_file; few_* adds
	// the two names it matches now; many_* matches more than maxExpand,
	// so only the glob answers for it.
	want := &ir.AllowSet{
		Names: []string{"few_a", "few_b", "other", "read", "read_file"},
		Globs: []string{"few_*", "many_*"},
	}
	if diff := cmp.Diff(want, spec.Agent("mixed").Allow); diff != "" {
		t.Errorf("mixed (-want +got):\n%s", diff)
	}
}

// TestRuntimeNamesIgnoreTheSeparator: the runtime's own tools keep their
// names (agent__final_report, agent__<sub-agent>) whatever the spec's
// separator, so aliases and tools.allowed name them that way; the
// separator-built names the loader used to accept match nothing at run time.
func TestRuntimeNamesIgnoreTheSeparator(t *testing.T) {
	src := `
toolgen { separator = "-" }
policy "p" {
  builtin       = "fs_read"
  allowed_paths = ["."]
}
tool "read_file" {
  description = "Read a file."
  policy      = policy.p
}
agent "helper" {
  tools { use = [tool.read_file] }
}
agent "lead" {
  subagents = [agent.helper]
  tools {
    use     = [tool.read_file, runtime.agent__final_report]
    allowed = ["done", "agent__*", tool.read_file]
    aliases = { done = "agent__final_report" }
  }
}
`
	spec, _, diags := LoadFiles("spec", map[string][]byte{"main.hcl": []byte(src)})
	if diags.HasErrors() || len(diags) > 0 {
		t.Fatalf("diagnostics: %v", diags)
	}
	want := &ir.AllowSet{Names: []string{"agent__final_report", "done", "read_file"}, Globs: []string{"agent__*"}}
	if diff := cmp.Diff(want, spec.Agent("lead").Allow); diff != "" {
		t.Errorf("allow set (-want +got):\n%s", diff)
	}
	bad := strings.Replace(src, `done = "agent__final_report"`, `done = "agent-final_report"`, 1)
	_, _, diags = LoadFiles("spec", map[string][]byte{"main.hcl": []byte(bad)})
	if !slices.ContainsFunc(diags, func(d *hcl.Diagnostic) bool { return d.Summary == "Unknown alias target" }) {
		t.Errorf("alias to agent-final_report under separator \"-\": %v", diags)
	}
}
