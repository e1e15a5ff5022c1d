package cmd

import (
	"bytes"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	goruntime "runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/hashicorp/hcl/v2"
	"golang.org/x/tools/txtar"

	spechcl "github.com/toolgen-dev/toolgen/hcl"
	"github.com/toolgen-dev/toolgen/hcl/ir"
)

// update rewrites the txtar goldens under testdata/cli: go test ./internal/cmd -update.
// Other tests of this package share it.
var update = flag.Bool("update", false, "rewrite golden files")

const repoRoot = "../.."

// run is Do with nothing on stdin.
func run(args []string, stdout, stderr io.Writer) int {
	return Do(args, strings.NewReader(""), stdout, stderr)
}

// cliCase is one golden: the command line (run from the repository root)
// and what it printed.
type cliCase struct {
	name string
	args string
	// setup, when set, prepares a directory the command runs in instead
	// of the repository root; its path reads $WORK in the golden.
	setup func(t *testing.T, dir string)
}

// cliCases are the hand-picked goldens; every invalid fixture also gets one
// in short format (validate-<fixture>.txtar).
var cliCases = []cliCase{
	{"validate-design-text", "validate testdata/specs/valid/design", nil},
	{"validate-design-json", "validate --format=json testdata/specs/valid/design", nil},
	{"validate-full", "validate testdata/specs/valid/full", nil},
	{"build-info-team", "build-info examples/team/spec", nil},
	{"build-info-replicas", "build-info examples/replicas/spec", nil},
	{"build-info-minimal", "build-info testdata/specs/valid/minimal", nil},
	{"validate-json-syntax", "validate --format=short testdata/specs/valid/json", nil},
	{"validate-text-unknown-references", "validate testdata/specs/invalid/unknown_references", nil},
	{"validate-text-alias-cycle", "validate testdata/specs/invalid/alias_cycle", nil},
	{"validate-json-untrusted", "validate --format=json testdata/specs/invalid/untrusted_direct_bundle", nil},
	{"validate-text-nesting", "validate testdata/specs/invalid/nesting_too_deep", nil},
	{"fmt-nesting", "fmt --format=short testdata/specs/invalid/nesting_too_deep", nil},
	{"validate-flag-after-dir", "validate testdata/specs/invalid/subagent_cycle --format=short", nil},
	{"validate-missing-dir", "validate --format=short testdata/specs/no_such_dir", nil},
	{"validate-no-args", "validate", nil},
	{"validate-two-dirs", "validate testdata/specs/valid/design testdata/specs/valid/full", nil},
	{"validate-bad-format", "validate --format=xml testdata/specs/valid/design", nil},
	{"fmt-design-diff", "fmt testdata/specs/valid/design", nil},
	{"fmt-formatted", "fmt testdata/specs/valid/minimal", nil},
	{"fmt-syntax-error", "fmt --format=short testdata/specs/invalid/syntax_error", nil},
	{"fmt-no-args", "fmt", nil},
	{"schema", "schema", nil},
	{"explain-agent-at-step", "explain examples/full/spec --agent coder --step release/planner/review", nil},
	{"explain-step-route", "explain examples/full/spec --agent researcher --step release/writer/draft --route release/writer/draft=files,web --route release/planner/plan=", nil},
	{"explain-subagent-depth", "explain examples/full/spec --agent coder --depth 2", nil},
	{"explain-prompts-resources", "explain testdata/specs/valid/prompts --agent coder", nil},
	{"explain-model", "explain examples/team/spec --agent lead", nil},
	{"explain-skills", "explain testdata/specs/valid/skills --agent reviewer", nil},
	{"explain-skills-step", "explain testdata/specs/valid/skills --agent writer --step change/author/review", nil},
	{"explain-route-unknown-bundle", "explain examples/full/spec --step release/planner/plan --route release/planner/plan=fils", nil},
	{"schema-extra-arg", "schema x", nil},
	{"version", "version", nil},
	{"help-command", "help validate", nil},
	{"help-unknown", "help nope", nil},
	{"version-extra-arg", "version x", nil},
	{"init", "init hello", newModule},
	{"init-twice", "init hello", initialised},
	{"init-outside-module", "init hello", nil},
	{"init-two-dirs", "init a b", nil},
	{"import-claude", "import -o - " + hostFixture("claude", "claude_desktop_config.json"), nil},
	{"import-claude-code", "import -o - " + hostFixture("claude-code", ".mcp.json"), nil},
	{"import-vscode", "import -o - " + hostFixture("vscode", ".vscode/mcp.json"), nil},
	{"import-cursor", "import -o - " + hostFixture("cursor", ".cursor/mcp.json"), nil},
	{"import-write", "import -o spec host.json", hostFile},
	{"import-into-spec", "import -o spec host.json", specExists},
	{"import-not-host", "import -o - testdata/specs/valid/json/spec.hcl.json", nil},
	{"import-no-files", "import", nil},
	{"import-bad-host", "import --host claud x.json", nil},
}

func hostFixture(dir, name string) string {
	return "internal/hostconfig/hostimport/testdata/import/" + dir + "/" + name
}

// newModule makes dir a Go module.
func newModule(t *testing.T, dir string) {
	writeTestFile(t, filepath.Join(dir, "go.mod"), "module example.com/app\n\ngo 1.26\n")
}

// initialised is a module where toolgen init already ran.
func initialised(t *testing.T, dir string) {
	newModule(t, dir)
	var stdout, stderr bytes.Buffer
	if code := run([]string{"init", filepath.Join(dir, "hello")}, &stdout, &stderr); code != exitOK {
		t.Fatalf("init: exit %d: %s", code, stderr.String())
	}
}

// hostFile is a Claude Code .mcp.json with a literal token.
func hostFile(t *testing.T, dir string) {
	writeTestFile(t, filepath.Join(dir, "host.json"), `{"mcpServers": {
  "github": {"type": "stdio", "command": "npx", "args": ["-y", "@modelcontextprotocol/server-github"],
             "env": {"GITHUB_PERSONAL_ACCESS_TOKEN": "ghp_0123456789abcdefghijklmnopqrstuvwxyz"}},
  "docs.site": {"type": "http", "url": "https://docs.example.com/mcp", "headers": {"Authorization": "Bearer sk-live-0123456789abcdef"}, "timeout": 5}
}}
`)
}

// specExists is hostFile with a spec already in spec/.
func specExists(t *testing.T, dir string) {
	hostFile(t, dir)
	writeTestFile(t, filepath.Join(dir, "spec", "main.hcl"), "agent \"a\" {}\n")
}

func writeTestFile(t *testing.T, name, data string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(name, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
}

// scrub replaces what differs between machines and runs: the temporary
// directory and the Go toolchain's version.
func scrub(b []byte, work string) []byte {
	s := string(b)
	if work != "" {
		s = strings.ReplaceAll(s, work, "$WORK")
	}
	s = strings.ReplaceAll(s, goruntime.Version()+" "+goruntime.GOOS+"/"+goruntime.GOARCH, "GOVERSION GOOS/GOARCH")
	return []byte(s)
}

func TestCLIGoldens(t *testing.T) {
	t.Chdir(repoRoot)
	cases := append([]cliCase(nil), cliCases...)
	dirs, _ := filepath.Glob("testdata/specs/invalid/*")
	for _, d := range dirs {
		cases = append(cases, cliCase{"validate-" + filepath.Base(d), "validate --format=short " + filepath.ToSlash(d), nil})
	}
	root, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			work := ""
			if c.setup != nil || strings.HasPrefix(c.name, "init") {
				// Outside the repository (and its module), always.
				work, err = filepath.EvalSymlinks(t.TempDir())
				if err != nil {
					t.Fatal(err)
				}
				if c.setup != nil {
					c.setup(t, work)
				}
				t.Chdir(work)
			}
			var stdout, stderr bytes.Buffer
			args := strings.Fields(c.args)
			if work != "" {
				for i, a := range args {
					if strings.HasPrefix(a, "internal/") || strings.HasPrefix(a, "testdata/") {
						args[i] = filepath.Join(root, a)
					}
				}
			}
			code := run(args, &stdout, &stderr)
			got := &txtar.Archive{
				Comment: []byte("toolgen " + c.args + "\n"),
				Files: []txtar.File{
					{Name: "exit", Data: []byte(strconv.Itoa(code) + "\n")},
					{Name: "stdout", Data: bytes.ReplaceAll(scrub(stdout.Bytes(), work), []byte(root), []byte("$TOOLGEN_SRC"))},
					{Name: "stderr", Data: bytes.ReplaceAll(scrub(stderr.Bytes(), work), []byte(root), []byte("$TOOLGEN_SRC"))},
				},
			}
			path := filepath.Join(root, "testdata", "cli", c.name+".txtar")
			if *update {
				os.MkdirAll(filepath.Dir(path), 0o755)
				if err := os.WriteFile(path, txtar.Format(got), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := txtar.ParseFile(path)
			if err != nil {
				t.Fatalf("%v (run go test ./internal/cmd -update)", err)
			}
			if diff := cmp.Diff(string(txtar.Format(want)), string(txtar.Format(got))); diff != "" {
				t.Errorf("toolgen %s (-want +got):\n%s", c.args, diff)
			}
		})
	}
}

// TestValidateShortPositions checks that every invalid fixture is rejected
// (exit 1) with FILE:LINE:COL for each marked line, independently of the
// goldens: each "# ERROR: Summary" marker must appear as an "error: Summary"
// line at that file and line.
func TestValidateShortPositions(t *testing.T) {
	t.Chdir(repoRoot)
	dirs, _ := filepath.Glob("testdata/specs/invalid/*")
	for _, dir := range dirs {
		t.Run(filepath.Base(dir), func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			code := run([]string{"validate", "--format=short", dir}, &stdout, &stderr)
			wantCode := exitDiags
			if !strings.Contains(markers(t, dir), "error:") {
				wantCode = exitOK // warnings only
			}
			if code != wantCode {
				t.Errorf("exit %d, want %d\n%s", code, wantCode, stderr.String())
			}
			var got []string
			for _, line := range strings.Split(strings.TrimSpace(stderr.String()), "\n") {
				// FILE:LINE:COL: SEVERITY: SUMMARY: DETAIL
				parts := strings.SplitN(line, ": ", 4)
				if len(parts) < 3 {
					t.Fatalf("malformed line %q", line)
				}
				loc := strings.Split(parts[0], ":")
				if len(loc) != 3 {
					t.Fatalf("no FILE:LINE:COL in %q", line)
				}
				if _, err := strconv.Atoi(loc[2]); err != nil {
					t.Fatalf("no column in %q", line)
				}
				got = append(got, fmt.Sprintf("%s:%s: %s: %s", loc[0], loc[1], parts[1], parts[2]))
			}
			want := strings.Split(strings.TrimSpace(markers(t, dir)), "\n")
			if diff := cmp.Diff(sortedLines(want), sortedLines(got)); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

// markers lists a fixture's "# ERROR:"/"# WARNING:" markers as
// "FILE:LINE: error: Summary" lines.
func markers(t *testing.T, dir string) string {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(dir, "*.hcl"))
	// A skill's SKILL.md marks its lines in YAML comments.
	skillFiles, _ := filepath.Glob(filepath.Join(dir, "skills", "*", "SKILL.md"))
	files = append(files, skillFiles...)
	var b strings.Builder
	for _, f := range files {
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for i, line := range strings.Split(string(src), "\n") {
			for _, sev := range []string{"ERROR", "WARNING"} {
				rest := line
				for {
					j := strings.Index(rest, "# "+sev+": ")
					if j < 0 {
						break
					}
					rest = rest[j+len(sev)+4:]
					summary := rest
					if k := strings.Index(summary, "#"); k >= 0 {
						summary = summary[:k]
					}
					fmt.Fprintf(&b, "%s:%d: %s: %s\n", f, i+1, strings.ToLower(sev), strings.TrimSpace(summary))
				}
			}
		}
	}
	return b.String()
}

func sortedLines(lines []string) []string {
	out := append([]string(nil), lines...)
	for i := range out {
		for j := i + 1; j < len(out); j++ {
			if out[j] < out[i] {
				out[i], out[j] = out[j], out[i]
			}
		}
	}
	return out
}

// TestFmtWrite formats a copy of every valid fixture with -w, then checks
// that a second run changes nothing and that the formatted spec loads to
// the same IR.
func TestFmtWrite(t *testing.T) {
	dirs, _ := filepath.Glob(filepath.Join(repoRoot, "testdata/specs/valid/*"))
	for _, src := range dirs {
		t.Run(filepath.Base(src), func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), filepath.Base(src))
			copyDir(t, src, dir)
			before, diags := spechcl.Load(dir)
			if diags.HasErrors() {
				t.Fatal(diags)
			}
			var stdout, stderr bytes.Buffer
			if code := run([]string{"fmt", "-w", dir}, &stdout, &stderr); code != exitOK {
				t.Fatalf("fmt -w: exit %d: %s", code, stderr.String())
			}
			stdout.Reset()
			if code := run([]string{"fmt", dir}, &stdout, &stderr); code != exitOK || stdout.Len() != 0 {
				t.Fatalf("fmt after fmt -w: exit %d, diff:\n%s", code, stdout.String())
			}
			after, diags := spechcl.Load(dir)
			if diags.HasErrors() {
				t.Fatal(diags)
			}
			if diff := cmp.Diff(before, after, ignoreRanges); diff != "" {
				t.Errorf("IR changed by fmt (-before +after):\n%s", diff)
			}
		})
	}
}

func copyDir(t *testing.T, from, to string) {
	t.Helper()
	if err := os.MkdirAll(to, 0o755); err != nil {
		t.Fatal(err)
	}
	entries, err := os.ReadDir(from)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if e.IsDir() { // a skill's directory
			copyDir(t, filepath.Join(from, e.Name()), filepath.Join(to, e.Name()))
			continue
		}
		b, err := os.ReadFile(filepath.Join(from, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(to, e.Name()), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// ignoreRanges compares IRs without source positions and the spec's own
// directory, which differ between a fixture and its copy.
var ignoreRanges = cmp.Options{
	cmpopts.IgnoreTypes(hcl.Range{}),
	cmpopts.IgnoreFields(ir.Spec{}, "Dir"),
	cmpopts.IgnoreUnexported(ir.Spec{}),
	cmpopts.EquateEmpty(),
}

// TestDeepNestingCLI: validate, generate and fmt on a file of 100,000
// nested parentheses crashed with a stack overflow (exit 2); each now
// reports "Nesting too deep" at the file and exits 1.
func TestDeepNestingCLI(t *testing.T) {
	dir := t.TempDir()
	n := 100000
	src := "tool \"a\" {\n  description = " + strings.Repeat("(", n) + "\"x\"" + strings.Repeat(")", n) + "\n}\n"
	if err := os.WriteFile(filepath.Join(dir, "main.hcl"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, cmd := range []string{"validate", "generate", "fmt"} {
		var stdout, stderr bytes.Buffer
		code := run([]string{cmd, "--format=short", dir}, &stdout, &stderr)
		want := filepath.Join(dir, "main.hcl") + ":2:272: error: Nesting too deep"
		if code != exitDiags || !strings.HasPrefix(stderr.String(), want) {
			t.Errorf("%s: exit %d, stderr %.300s; want %s", cmd, code, stderr.String(), want)
		}
	}
}
