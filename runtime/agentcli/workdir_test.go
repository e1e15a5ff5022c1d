package agentcli_test

import (
	"context"
	"encoding/json"
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"golang.org/x/tools/txtar"
)

// workspaceBin is testdata/workspace, built by TestMain: an agent whose
// read_file may read ./workspace, a relative path, as in the README and
// `toolgen init`.
var workspaceBin string

func workspaceAgent(t *testing.T) string { return workspaceBin }

// project is a directory with workspace/notes.md.
func project(t *testing.T) string {
	t.Helper()
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(dir, "workspace"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "workspace", "notes.md"), []byte("Notes from the workspace.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

// serveFrom starts the binary as an MCP host does, in dir (hosts use / or
// a directory of their own), and reads workspace/notes.md through
// read_file. It returns the file's text and read_file's description.
func serveFrom(t *testing.T, dir string, env []string, command string, args ...string) (string, string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.Command(command, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "host", Version: "1"}, nil).
		Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	defer cs.Close()
	// The agent's instructions are what the host receives.
	if got, want := cs.InitializeResult().Instructions, "Answer from the notes in the workspace; quote the file you read."; got != want {
		t.Errorf("initialize instructions = %q, want the agent's %q", got, want)
	}
	var desc string
	for tool, err := range cs.Tools(ctx, nil) {
		if err != nil {
			t.Fatal(err)
		}
		if tool.Name == "read_file" {
			desc = tool.Description
		}
	}
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "read_file", Arguments: map[string]any{"path": "workspace/notes.md"}})
	if err != nil {
		t.Fatal(err)
	}
	text := res.Content[0].(*mcp.TextContent).Text
	if res.IsError {
		t.Fatalf("read_file failed: %s", text)
	}
	return text, desc
}

// TestServeWorkdir: a host starts the agent in /, and the agent reads
// its workspace through --workdir or TOOLGEN_WORKDIR; read_file's
// description names the directory it may read.
func TestServeWorkdir(t *testing.T) {
	bin := workspaceAgent(t)
	proj := project(t)
	for name, c := range map[string]struct {
		env  []string
		args []string
	}{
		"flag": {nil, []string{"serve", "--stdio", "--workdir", proj}},
		"env":  {[]string{"TOOLGEN_WORKDIR=" + proj}, []string{"serve", "--stdio"}},
	} {
		t.Run(name, func(t *testing.T) {
			text, desc := serveFrom(t, "/", append(c.env, "TOOLGEN_LOG=warn"), bin, c.args...)
			if text != "Notes from the workspace.\n" {
				t.Errorf("read_file: %q", text)
			}
			want := "Reads only inside " + filepath.Join(proj, "workspace")
			if !strings.Contains(desc, want) {
				t.Errorf("read_file's description %q lacks %q", desc, want)
			}
		})
	}
}

// TestServeChecksPolicyPaths: started in / without a workdir, serve fails
// at once, saying which path is missing and how to set the base, instead
// of serving a read_file whose every call fails.
func TestServeChecksPolicyPaths(t *testing.T) {
	bin := workspaceAgent(t)
	cmd := exec.Command(bin, "serve", "--stdio")
	cmd.Dir = "/"
	cmd.Env = append(os.Environ(), "TOOLGEN_LOG=warn", "TOOLGEN_WORKDIR=")
	out, err := cmd.CombinedOutput()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 1 {
		t.Fatalf("serve in /: %v, want exit 1\n%s", err, out)
	}
	for _, want := range []string{`policy "workspace_read": allowed path "./workspace" is /workspace, which does not exist`, "--workdir DIR", "TOOLGEN_WORKDIR"} {
		if !strings.Contains(string(out), want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	// A --workdir that is no directory is refused by name.
	cmd = exec.Command(bin, "serve", "--stdio", "--workdir", "/no/such/dir")
	cmd.Env = append(os.Environ(), "TOOLGEN_LOG=warn")
	out, _ = cmd.CombinedOutput()
	if !strings.Contains(string(out), `--workdir "/no/such/dir"`) {
		t.Errorf("bad --workdir: %s", out)
	}
}

// TestMCPConfig prints each host's entry from the project's directory,
// then starts the server exactly as the Claude Code entry says, from /,
// as a host would: it reads the workspace.
func TestMCPConfig(t *testing.T) {
	bin := workspaceAgent(t)
	proj := project(t)
	run := func(args ...string) (string, string, int) {
		cmd := exec.Command(bin, args...)
		cmd.Dir = proj
		cmd.Env = append(os.Environ(), "TOOLGEN_LOG=warn", "TOOLGEN_WORKDIR=")
		var out, errb strings.Builder
		cmd.Stdout, cmd.Stderr = &out, &errb
		err := cmd.Run()
		code := 0
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		return out.String(), errb.String(), code
	}
	for _, host := range []string{"claude", "claude-code", "vscode", "cursor"} {
		out, errs, code := run("mcp-config", host)
		if code != 0 {
			t.Fatalf("mcp-config %s: exit %d: %s", host, code, errs)
		}
		for _, want := range []string{`"command": "` + bin + `"`, `"--workdir", "` + proj + `"`, `"--agent", "notes"`, "WEATHER_TOKEN"} {
			if !strings.Contains(out, want) {
				t.Errorf("mcp-config %s lacks %s:\n%s", host, want, out)
			}
		}
		// mcp-config HOST > .mcp.json must write a valid file; the notes go to stderr
		if !json.Valid([]byte(out)) || !strings.HasPrefix(errs, "# ") {
			t.Errorf("mcp-config %s: stdout is not only the JSON document, or stderr lacks the notes:\n--- stdout\n%s--- stderr\n%s", host, out, errs)
		}
	}
	jsonText, _, _ := run("mcp-config", "claude-code")
	var entry struct {
		MCPServers map[string]struct {
			Command string   `json:"command"`
			Args    []string `json:"args"`
		} `json:"mcpServers"`
	}
	if err := json.Unmarshal([]byte(jsonText), &entry); err != nil {
		t.Fatalf("%v\n%s", err, jsonText)
	}
	s := entry.MCPServers["notes"]
	if text, _ := serveFrom(t, "/", []string{"TOOLGEN_LOG=warn", "TOOLGEN_WORKDIR="}, s.Command, s.Args...); text != "Notes from the workspace.\n" {
		t.Errorf("the server of the entry read %q", text)
	}

	if _, errs, code := run("mcp-config", "claud"); code != 2 || !strings.Contains(errs, `did you mean "claude"`) {
		t.Errorf("unknown host: exit %d, %s", code, errs)
	}
	if _, errs, code := run("mcp-config"); code != 2 || !strings.Contains(errs, "want one HOST") {
		t.Errorf("no host: exit %d, %s", code, errs)
	}
}

var update = flag.Bool("update", false, "rewrite testdata/mcp-config.txtar")

// TestMCPConfigGolden keeps each host's entry, with the binary's and the
// project's paths as $BIN and $WORK, in testdata/mcp-config.txtar
// (rewrite with go test ./runtime/agentcli -run MCPConfigGolden -update).
func TestMCPConfigGolden(t *testing.T) {
	proj := project(t)
	ar := &txtar.Archive{Comment: []byte("notes mcp-config HOST, run in $WORK\n")}
	for _, host := range []string{"claude", "claude-code", "vscode", "cursor"} {
		cmd := exec.Command(workspaceBin, "mcp-config", host)
		cmd.Dir = proj
		cmd.Env = append(os.Environ(), "TOOLGEN_LOG=warn", "TOOLGEN_WORKDIR=")
		var stderr strings.Builder
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("%s: %v", host, err)
		}
		for _, f := range []struct{ name, text string }{{host + " stdout", string(out)}, {host + " stderr", stderr.String()}} {
			s := strings.ReplaceAll(f.text, workspaceBin, "$BIN")
			s = strings.ReplaceAll(s, proj, "$WORK")
			ar.Files = append(ar.Files, txtar.File{Name: f.name, Data: []byte(s)})
		}
	}
	path := filepath.Join("testdata", "mcp-config.txtar")
	if *update {
		if err := os.WriteFile(path, txtar.Format(ar), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(string(want), string(txtar.Format(ar))); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}
