package runtime

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/toolgen-dev/toolgen/runtime/decl"
)

func openFDs(t *testing.T) int {
	t.Helper()
	fds, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Skipf("counting file descriptors: %v", err)
	}
	return len(fds)
}

// A builtin tool dropped from the surface by a step change was rebuilt
// when the next step brought it back, opening new os.Root handles each
// time; the old ones were closed only at teardown.
func TestStepTogglesDoNotLeakBuiltinFDs(t *testing.T) {
	f := newFixture(decl.Agent{Name: "a"})
	f.reg.Workflows[0].Roles[0].Steps = append(f.reg.Workflows[0].Roles[0].Steps, decl.Step{Name: "files", Bundles: []string{"files"}})
	wd := t.TempDir()
	if err := os.MkdirAll(filepath.Join(wd, "workspace"), 0o755); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(wd, "workspace", "a.txt"), []byte("hello\n"), 0o644)
	o := f.opts(&events{})
	o.Workdir = wd
	s := open(t, f.reg, "a", o)
	ctx := context.Background()
	toggle := func() {
		tools, err := s.ToolsForStep(ctx, "release", "planner", "files")
		if err != nil || !slices.Contains(toolNames(tools), "read_file") {
			t.Fatalf("files step: %v %v", toolNames(tools), err)
		}
		if _, err := s.ToolsForStep(ctx, "release", "planner", "plan"); err != nil {
			t.Fatal(err)
		}
	}
	toggle() // connects github once; counted from here
	before := openFDs(t)
	for range 200 {
		toggle()
	}
	if after := openFDs(t); after > before+5 {
		t.Errorf("200 step toggles took the process from %d to %d open files", before, after)
	}
	s.ToolsForStep(ctx, "release", "planner", "files")
	if out := mustOK(t, call(t, s, "read_file", `{"path":"workspace/a.txt"}`)); out != "hello\n" {
		t.Errorf("read_file after toggles = %q", out)
	}
}
