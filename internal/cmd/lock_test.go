package cmd

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	spechcl "github.com/toolgen-dev/toolgen/hcl"
)

func buildLockFixture(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "echo")
	if out, err := exec.Command("go", "build", "-o", bin, "../../testdata/mcpservers/echo").CombinedOutput(); err != nil {
		t.Fatalf("building the echo fixture: %v\n%s", err, out)
	}
	return bin
}

func writeLockSpec(t *testing.T, body string) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "toolgen.hcl"), []byte("toolgen {\n  package = \"locktest\"\n}\n"+body), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

func runLockCmd(t *testing.T, dir string) (int, string, string) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	code := run([]string{"lock", dir}, &stdout, &stderr)
	return code, stdout.String(), stderr.String()
}

func readLockFile(t *testing.T, dir string) (*spechcl.Lock, []byte) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, spechcl.LockFileName))
	if err != nil {
		t.Fatal(err)
	}
	l, err := spechcl.ParseLock(b)
	if err != nil {
		t.Fatal(err)
	}
	return l, b
}

func TestLockServerEverything(t *testing.T) {
	npm, err := filepath.Abs("../../testdata/npm/node_modules")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(npm); err != nil {
		t.Skip("testdata/npm/node_modules is missing: run `make npm` to install the real MCP servers")
	}
	echo := buildLockFixture(t)
	dir := writeLockSpec(t, fmt.Sprintf(`
defaults {
  init_concurrency = 2
}

server "everything" {
  transport       = "stdio"
  command         = %q
  args            = [%q, "stdio"]
  startup_timeout = "30s"
}

server "echo" {
  transport = "stdio"
  command   = %q
  args      = ["-tools", "30", "-page-size", "7"]
}
`, filepath.Join(npm, ".bin", "node"), filepath.Join(npm, "@modelcontextprotocol", "server-everything", "dist", "index.js"), echo))

	code, stdout, stderr := runLockCmd(t, dir)
	if code != exitOK {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	if !strings.Contains(stdout, "echo: 34 tools\n") || !strings.Contains(stdout, "wrote ") {
		t.Errorf("stdout:\n%s", stdout)
	}
	lock, first := readLockFile(t, dir)
	ev := lock.Servers["everything"]
	if ev == nil || len(ev.Tools) < 5 {
		t.Fatalf("everything: %+v", ev)
	}
	if !strings.Contains(stdout, fmt.Sprintf("everything: %d tools\n", len(ev.Tools))) {
		t.Errorf("stdout:\n%s", stdout)
	}
	names := map[string]bool{}
	for i, tl := range ev.Tools {
		names[tl.Name] = true
		if i > 0 && ev.Tools[i-1].Name >= tl.Name {
			t.Errorf("tools not sorted: %s before %s", ev.Tools[i-1].Name, tl.Name)
		}
		if tl.Hash != spechcl.ToolHash(tl.Name, tl.Description, tl.InputSchema) {
			t.Errorf("%s: hash %s does not match its content", tl.Name, tl.Hash)
		}
	}
	if !names["echo"] || !names["get-sum"] {
		t.Errorf("everything tools: %v", names)
	}
	// What tools/list shows besides is recorded: server-everything gives
	// get-structured-content an output schema and its tools annotations.
	var outputSchemas, annotated int
	for _, tl := range ev.Tools {
		if len(tl.OutputSchema) > 0 {
			outputSchemas++
		}
		if len(tl.Annotations) > 0 {
			annotated++
		}
	}
	if outputSchemas == 0 || annotated == 0 {
		t.Errorf("lock records %d output schemas and %d annotations; server-everything has both", outputSchemas, annotated)
	}

	// Deterministic: a second run finds nothing to change.
	code, stdout, _ = runLockCmd(t, dir)
	if code != exitOK || !strings.Contains(stdout, "unchanged") {
		t.Errorf("second run: exit %d\n%s", code, stdout)
	}
	if _, second := readLockFile(t, dir); !bytes.Equal(first, second) {
		t.Error("second run changed the lock file")
	}
}

func TestLockPartialFailure(t *testing.T) {
	echo := buildLockFixture(t)
	os.Unsetenv("TOOLGEN_LOCK_TEST_UNSET")
	dir := writeLockSpec(t, fmt.Sprintf(`
server "echo" {
  transport = "stdio"
  command   = %q
}

server "broken" {
  transport = "stdio"
  command   = "/nonexistent/mcp-server"
}

server "needs_env" {
  transport = "stdio"
  command   = %q
  env       = { TOKEN = env("TOOLGEN_LOCK_TEST_UNSET") }
}
`, echo, echo))
	// An earlier lock knew "broken" and a server since removed from the spec.
	old := &spechcl.Lock{Servers: map[string]*spechcl.LockServer{
		"broken": {Tools: []spechcl.LockTool{{Name: "kept_tool", InputSchema: []byte(`{"type":"object"}`)}}},
		"gone":   {Tools: []spechcl.LockTool{{Name: "old"}}},
	}}
	b, err := old.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, spechcl.LockFileName), b, 0o644); err != nil {
		t.Fatal(err)
	}

	code, stdout, stderr := runLockCmd(t, dir)
	if code != exitDiags {
		t.Errorf("exit %d, want %d", code, exitDiags)
	}
	for _, want := range []string{
		"echo: 4 tools\n",
		`broken: error: server "broken": start:`,
		"needs_env: error: server \"needs_env\": env TOKEN: environment variable TOOLGEN_LOCK_TEST_UNSET is not set\n",
	} {
		if !strings.Contains(stdout, want) {
			t.Errorf("stdout lacks %q:\n%s", want, stdout)
		}
	}
	if !strings.Contains(stderr, "2 of 3 servers failed; 1 kept their previous entry") {
		t.Errorf("stderr: %s", stderr)
	}
	lock, _ := readLockFile(t, dir)
	if lock.Servers["echo"] == nil || len(lock.Servers["echo"].Tools) != 4 {
		t.Errorf("echo not recorded: %+v", lock.Servers["echo"])
	}
	if s := lock.Servers["broken"]; s == nil || s.Tools[0].Name != "kept_tool" {
		t.Errorf("broken lost its previous entry: %+v", s)
	}
	if lock.Servers["gone"] != nil || lock.Servers["needs_env"] != nil {
		t.Errorf("servers: %v", lock.Servers)
	}
}

func TestLockUsage(t *testing.T) {
	var stdout, stderr0 bytes.Buffer
	if code := run([]string{"lock"}, &stdout, &stderr0); code != exitUsage {
		t.Errorf("no dir: exit %d", code)
	}
	dir := writeLockSpec(t, "server \"x\" {\n  transport = \"stdio\"\n}\n") // no command
	code, _, stderr := runLockCmd(t, dir)
	if code != exitDiags || !strings.Contains(stderr, "command") {
		t.Errorf("invalid spec: exit %d, stderr %s", code, stderr)
	}
}
