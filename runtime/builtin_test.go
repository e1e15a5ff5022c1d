package runtime

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/toolgen-dev/toolgen/runtime/decl"
)

// Seed tool-orchestration, scenario "fs_read tool registered".
func TestFsReadToolRegistered(t *testing.T) {
	f := newFixture(decl.Agent{Name: "a", Use: useTools("read_file")})
	opts := f.opts(&events{})
	opts.Workdir = workspace(t)
	s := open(t, f.reg, "a", opts)
	if ti := s.Tools(); !strings.Contains(string(infoOf(ti, "read_file").InputSchema), "path") {
		t.Errorf("read_file schema: %s", infoOf(ti, "read_file").InputSchema)
	}
	if out := mustOK(t, call(t, s, "read_file", `{"path":"workspace/notes.txt"}`)); !strings.Contains(out, "hello") {
		t.Errorf("read: %q", out)
	}
	for _, p := range []string{"secret.txt", "workspace/../secret.txt", filepath.Join(opts.Workdir, "secret.txt")} {
		if r := call(t, s, "read_file", `{"path":`+jsonString(p)+`}`); r.OK || strings.Contains(r.Result, "secret") {
			t.Errorf("read %s escaped the policy: %+v", p, r)
		}
	}
}

// Seed tool-orchestration, scenario "fs_write tool registered".
func TestFsWriteToolRegistered(t *testing.T) {
	f := newFixture(decl.Agent{Name: "a", Use: useTools("write_file")})
	opts := f.opts(&events{})
	opts.Workdir = workspace(t)
	s := open(t, f.reg, "a", opts)
	mustOK(t, call(t, s, "write_file", `{"path":"workspace/out/a.txt","content":"hi"}`))
	if b, _ := os.ReadFile(filepath.Join(opts.Workdir, "workspace", "out", "a.txt")); string(b) != "hi" {
		t.Errorf("file %q", b)
	}
	if r := call(t, s, "write_file", `{"path":"workspace/notes.txt","content":"x"}`); r.OK {
		t.Error("write outside allowed_paths succeeded")
	}
}

// Seed tool-orchestration, scenario "shell_exec tool registered".
func TestShellExecToolRegistered(t *testing.T) {
	f := newFixture(decl.Agent{Name: "a", Use: useTools("git")})
	opts := f.opts(&events{})
	opts.Workdir = workspace(t)
	s := open(t, f.reg, "a", opts)
	if out := mustOK(t, call(t, s, "git", `{"command":"go","args":["env","GOOS"]}`)); !strings.Contains(out, "linux") {
		t.Errorf("go env: %q", out)
	}
	if r := call(t, s, "git", `{"command":"sh","args":["-c","echo pwned"]}`); r.OK {
		t.Errorf("command outside allowed_commands ran: %+v", r)
	}
}

// A shell_exec policy's max_cpu_time reaches the command: a spinning one is stopped and the
// result names the limit.
func TestShellExecPolicyLimits(t *testing.T) {
	f := newFixture(decl.Agent{Name: "a", Use: useTools("git")})
	for i := range f.reg.Policies {
		if f.reg.Policies[i].Name == "git" {
			f.reg.Policies[i].AllowedCommands = append(f.reg.Policies[i].AllowedCommands, "sh")
			f.reg.Policies[i].MaxCPUTime = time.Second
		}
	}
	opts := f.opts(&events{})
	opts.Workdir = workspace(t)
	s := open(t, f.reg, "a", opts)
	if r := call(t, s, "git", `{"command":"sh","args":["-c","while :; do :; done"]}`); r.OK || !strings.Contains(r.Error, "hit its CPU time limit (1s)") {
		t.Errorf("spinning command: %+v", r)
	}
}

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

// Builtin tools declare no input schema in the registry; before they are
// loaded, tool_describe and tool_load must still give the builtin's own
// schema, not an empty object (found by examples/full's acceptance test).
func TestBuiltinSchemaBeforeLoad(t *testing.T) {
	f := newFixture(decl.Agent{Name: "a", Discovery: true, Use: useTools("read_file", "write_file", "git")})
	ev := &events{}
	s, err := Open(context.Background(), f.reg, "a", f.opts(ev))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for tool, want := range map[string]string{"read_file": `"path"`, "write_file": `"content"`, "git": `"enum":["git","go"]`} {
		r := s.Call(context.Background(), decl.ToolDescribe, json.RawMessage(`{"name":"`+tool+`"}`))
		if !r.OK || !strings.Contains(r.Result, want) {
			t.Errorf("tool_describe(%s) = %+v; want its builtin schema with %s", tool, r, want)
		}
		r = s.Call(context.Background(), decl.ToolLoad, json.RawMessage(`{"names":["`+tool+`"]}`))
		if !r.OK || !strings.Contains(r.Result, want) || !strings.Contains(r.Result, `"already_active":[]`) {
			t.Errorf("tool_load(%s) = %+v; want its builtin schema with %s, and already_active a list", tool, r, want)
		}
		for _, info := range s.Tools() {
			if info.Name == tool && !strings.Contains(string(info.InputSchema), want) {
				t.Errorf("Tools() schema of %s = %s", tool, info.InputSchema)
			}
		}
	}
}

// A policy's allow_hardlinks reaches fs_read: without it a hard link to a file outside the
// allowed paths is refused, with it the file is read.
func TestPolicyAllowHardlinks(t *testing.T) {
	for _, allow := range []bool{false, true} {
		f := newFixture(decl.Agent{Name: "a", Use: useTools("read_file")})
		for i := range f.reg.Policies {
			f.reg.Policies[i].AllowHardlinks = allow
		}
		opts := f.opts(&events{})
		opts.Workdir = workspace(t)
		if err := os.Link(filepath.Join(opts.Workdir, "secret.txt"), filepath.Join(opts.Workdir, "workspace", "link.txt")); err != nil {
			t.Fatal(err)
		}
		s := open(t, f.reg, "a", opts)
		r := call(t, s, "read_file", `{"path":"workspace/link.txt"}`)
		if allow != r.OK || allow != strings.Contains(r.Result, "secret") {
			t.Errorf("allow_hardlinks = %v: read through a hard link = %+v", allow, r)
		}
	}
}
