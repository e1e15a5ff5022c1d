package cmd

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const explainSpec = `
toolgen { package = "demo" }

tool "read_file" {
  description = "Read a file."
  go          = "example.com/x.Read"
}
tool "entities_get" {
  description = "Get an entity."
  go          = "example.com/x.Get"
}
tool "entities_delete" {
  description = "Delete an entity."
  go          = "example.com/x.Delete"
}
bundle "files" { tools = [tool.read_file] }

agent "coder" {
  tools {
    use     = [tool.read_file, "entities_*"]
    allowed = ["read", "entities_get"]
    aliases = { read = "read_file" }
  }
}

workflow "release" {
  role "planner" {
    step "plan" { bundles = [bundle.files] }
  }
}
`

func explainRun(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := run(append([]string{"explain"}, args...), &out, &errb)
	return code, out.String(), errb.String()
}

func explainDir(t *testing.T) string {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "main.hcl"), []byte(explainSpec), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

func TestExplainAgentCLI(t *testing.T) {
	dir := explainDir(t)
	code, out, stderr := explainRun(t, dir, "--agent", "coder")
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, want := range []string{
		"agent coder",
		"alias read -> read_file",
		`tools.use[0] tool.read_file; tools.allowed[0] alias "read" -> read_file`,
		`tools.use[1] glob "entities_*"; tools.allowed[1] "entities_get"`,
		`entities_delete`, `in use but not matched by tools.allowed`,
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
}

func TestExplainStepCLI(t *testing.T) {
	dir := explainDir(t)
	code, out, stderr := explainRun(t, "--step", "release/planner/plan", dir, "--json")
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var x struct {
		Step  string
		Tools []struct {
			Name, Status string
			Reasons      []string
		}
	}
	if err := json.Unmarshal([]byte(out), &x); err != nil {
		t.Fatalf("%v:\n%s", err, out)
	}
	if x.Step != "release/planner/plan" || len(x.Tools) != 1 || x.Tools[0].Name != "read_file" || x.Tools[0].Status != "callable" {
		t.Errorf("explanation %+v", x)
	}
}

func TestExplainErrorsCLI(t *testing.T) {
	dir := explainDir(t)
	if code, _, stderr := explainRun(t, dir, "--agent", "codr"); code != exitDiags || !strings.Contains(stderr, `did you mean "coder"`) {
		t.Errorf("unknown agent: exit %d, %s", code, stderr)
	}
	if code, _, _ := explainRun(t); code != exitUsage {
		t.Errorf("no dir: exit %d", code)
	}
	bad := t.TempDir()
	os.WriteFile(filepath.Join(bad, "main.hcl"), []byte(`agent "a" { tools { use = [tool.nope] } }`), 0o644)
	if code, _, stderr := explainRun(t, bad, "--agent", "a"); code != exitDiags || !strings.Contains(stderr, "main.hcl:1:") {
		t.Errorf("bad spec: exit %d, %s", code, stderr)
	}
	// every agent when neither flag is given
	if code, out, _ := explainRun(t, dir); code != exitOK || !strings.Contains(out, "agent coder") {
		t.Errorf("all agents: exit %d\n%s", code, out)
	}
}

// --route overrides a step's bundles as Options.Routes does, also for an
// address the spec does not declare; an empty list denies the step.
func TestExplainRouteCLI(t *testing.T) {
	dir := explainDir(t)
	code, out, stderr := explainRun(t, dir, "--agent", "coder", "--step", "other/role/step", "--route", "other/role/step=files", "--json")
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var x struct {
		Bundles []string
		Routed  string
		Tools   []struct{ Name, Status string }
	}
	if err := json.Unmarshal([]byte(out), &x); err != nil {
		t.Fatalf("%v:\n%s", err, out)
	}
	status := map[string]string{}
	for _, tl := range x.Tools {
		status[tl.Name] = tl.Status
	}
	// read_file is listed under its alias, read
	if x.Routed != "route override" || len(x.Bundles) != 1 || status["read"] != "callable" || status["entities_get"] != "excluded" {
		t.Errorf("explanation %+v", x)
	}
	code, out, _ = explainRun(t, dir, "--agent", "coder", "--step", "release/planner/plan", "--route", "release/planner/plan=")
	_, callable, _ := strings.Cut(out, "callable (")
	callable, _, _ = strings.Cut(callable, "excluded (")
	if code != exitOK || !strings.Contains(out, "bundles: (none) (route override)") || strings.Contains(callable, "read_file") {
		t.Errorf("denied step: exit %d\n%s", code, out)
	}
	for _, bad := range [][]string{
		{"--route", "release/planner=files"},
		{"--route", "release/planner/plan"},
		{"--route", "a/b/c=files", "--route", "a/b/c=files"},
		{"--depth", "-1"},
	} {
		if code, _, _ := explainRun(t, append([]string{dir, "--agent", "coder"}, bad...)...); code != exitUsage {
			t.Errorf("%v: exit %d, want %d", bad, code, exitUsage)
		}
	}
}

// An unknown step on the command line is a typo, not an empty surface.
func TestExplainUnknownStep(t *testing.T) {
	var stdout, stderr bytes.Buffer
	code := run([]string{"explain", "../../examples/full/spec", "--step", "release/plannr/plan"}, &stdout, &stderr)
	if code != exitDiags || !strings.Contains(stderr.String(), `did you mean "release/planner/plan"?`) {
		t.Errorf("exit %d, stderr %q", code, stderr.String())
	}
}
