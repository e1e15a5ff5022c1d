package main_test

// Upstream servers' tasks through a built agent: the conformance agent
// (slow_compute takes tasks) is the upstream of a proxy agent generated
// from a spec whose server blocks set tasks = true, once over stdio (up)
// and once over streamable HTTP (web). A 2026-07-28 host
// drives the proxy's binary over stdio and over serve --http: a task call
// of the upstream's tool goes through the proxy's pipeline (argument
// check, deny_tools, tool.call event) and becomes the upstream's task,
// which the host polls, cancels (the upstream's run ends cancelled) and
// collects (through the proxy's size cap, as a plain call's result).

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/toolgen-dev/toolgen/internal/testbin"
)

var bin, root string

func TestMain(m *testing.M) { os.Exit(testbin.Main(m, "conformance", &bin, &root)) }

const proxySpec = `toolgen {
  package = "proxy"
}

defaults {
  response_max_bytes = 40
}

server "up" {
  command    = %q
  args       = ["serve"]
  tasks      = true
  deny_tools = ["failing_job"]
}

server "web" {
  url        = env("UP_URL")
  tasks      = true
  deny_tools = ["failing_job"]
}

agent "gateway" {
  description = "Passes the upstreams' tasks through."
  tools {
    use = [server.up, server.web]
  }
}
`

// hang bounds every wait of these tests.
const hang = 90 * time.Second

// buildProxy generates and builds the proxy agent in a temporary module.
func buildProxy(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("builds toolgen and a proxy agent binary")
	}
	dir := t.TempDir()
	env := append(os.Environ(), "GOWORK=off", "GOFLAGS=-mod=mod")
	run := func(name string, args ...string) {
		t.Helper()
		cmd := exec.Command(name, args...)
		cmd.Dir, cmd.Env = dir, env
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out)
		}
	}
	write := func(path, text string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	toolgen := filepath.Join(dir, "bin", "toolgen")
	build := exec.Command("go", "build", "-o", toolgen, "./cmd/toolgen")
	build.Dir = root
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("build toolgen: %v\n%s", err, out)
	}
	sum, err := os.ReadFile(filepath.Join(root, "go.sum"))
	if err != nil {
		t.Fatal(err)
	}
	write(filepath.Join(dir, "go.sum"), string(sum))
	write(filepath.Join(dir, "go.mod"), "module uptaskstest\n\ngo 1.26.8\n\nrequire github.com/toolgen-dev/toolgen v0.0.0\n\nreplace github.com/toolgen-dev/toolgen => "+root+"\n")
	write(filepath.Join(dir, "proxy", "spec", "proxy.hcl"), fmt.Sprintf(proxySpec, bin))
	run(toolgen, "generate", "-o", "proxy/gen", "proxy/spec")
	gen, err := os.ReadFile(filepath.Join(dir, "proxy", "gen", "registry_gen.go"))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(gen, []byte(`_ "github.com/toolgen-dev/toolgen/runtime/tasks"`)) {
		t.Fatal("tasks = true did not link runtime/tasks into the proxy")
	}
	write(filepath.Join(dir, "proxy", "main.go"), "package main\n\nimport (\n\t\"os\"\n\n\tproxy \"uptaskstest/proxy/gen\"\n\t\"github.com/toolgen-dev/toolgen/runtime/agentcli\"\n)\n\nfunc main() { os.Exit(agentcli.Main(proxy.Registry, os.Args[1:])) }\n")
	out := filepath.Join(dir, "bin", "proxy")
	run("go", "build", "-o", out, "./proxy")
	return out
}

// logs is a process's stderr, kept to search.
type logs struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (l *logs) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.Write(p)
}

func (l *logs) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.String()
}

// waitFor waits until the logs match re.
func (l *logs) waitFor(t *testing.T, re *regexp.Regexp) {
	t.Helper()
	deadline := time.Now().Add(hang)
	for !re.MatchString(l.String()) {
		if time.Now().After(deadline) {
			t.Fatalf("no log line matches %s; logs:\n%s", re, l.String())
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// host sends one request of a 2026-07-28 host and returns its result or
// its JSON-RPC error.
type host func(t *testing.T, method, name string, params map[string]any, tasks bool) reply

// reply is a request's result or its JSON-RPC error.
type reply struct{ res, rpcErr json.RawMessage }

// meta is a 2026-07-28 request's _meta; tasks declares the extension.
func meta(tasks bool) map[string]any {
	caps := map[string]any{}
	if tasks {
		caps["extensions"] = map[string]any{"io.modelcontextprotocol/tasks": map[string]any{}}
	}
	return map[string]any{
		"io.modelcontextprotocol/protocolVersion":    "2026-07-28",
		"io.modelcontextprotocol/clientInfo":         map[string]any{"name": "task-host", "version": "1"},
		"io.modelcontextprotocol/clientCapabilities": caps,
	}
}

type response struct {
	ID     json.RawMessage `json:"id"`
	Result json.RawMessage `json:"result"`
	Error  json.RawMessage `json:"error"`
}

// stdioHost runs the proxy's serve over stdio.
func stdioHost(t *testing.T, proxy string, env ...string) (host, *logs) {
	cmd := exec.Command(proxy, "serve")
	cmd.Dir, cmd.Env = t.TempDir(), append(append(os.Environ(), "TOOLGEN_LOG=debug"), env...)
	stderr := &logs{}
	cmd.Stderr = stderr
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { in.Close(); cmd.Process.Kill(); cmd.Wait() })
	lines := make(chan []byte)
	go func() {
		sc := bufio.NewScanner(out)
		sc.Buffer(nil, 1<<24)
		for sc.Scan() {
			lines <- append([]byte(nil), sc.Bytes()...)
		}
		close(lines)
	}()
	var next atomic.Int64
	return func(t *testing.T, method, _ string, params map[string]any, tasks bool) reply {
		t.Helper()
		params["_meta"] = meta(tasks)
		id := next.Add(1)
		msg, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "method": method, "params": params})
		if _, err := in.Write(append(msg, '\n')); err != nil {
			t.Fatal(err)
		}
		timeout := time.After(hang)
		for {
			select {
			case line, ok := <-lines:
				if !ok {
					t.Fatalf("%s: the proxy closed stdout; stderr:\n%s", method, stderr)
				}
				var r response
				if json.Unmarshal(line, &r) == nil && string(r.ID) == fmt.Sprint(id) {
					return reply{r.Result, r.Error}
				}
			case <-timeout:
				t.Fatalf("%s: no answer; stderr:\n%s", method, stderr)
			}
		}
	}, stderr
}

// serveHTTP runs bin's serve --http with env added and returns its MCP
// endpoint and stderr.
func serveHTTP(t *testing.T, bin string, env ...string) (string, *logs) {
	t.Helper()
	cmd := exec.Command(bin, "serve", "--http", "127.0.0.1:0")
	cmd.Dir, cmd.Env = t.TempDir(), append(append(os.Environ(), "TOOLGEN_LOG=debug"), env...)
	stderr := &logs{}
	cmd.Stderr = stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	served := regexp.MustCompile(`serving agent .* on (http://\S+)`)
	stderr.waitFor(t, served)
	return served.FindStringSubmatch(stderr.String())[1], stderr
}

// httpHost runs the proxy's serve --http.
func httpHost(t *testing.T, proxy string, env ...string) (host, *logs) {
	url, stderr := serveHTTP(t, proxy, env...)
	var next atomic.Int64
	return func(t *testing.T, method, name string, params map[string]any, tasks bool) reply {
		t.Helper()
		params["_meta"] = meta(tasks)
		id := next.Add(1)
		body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "method": method, "params": params})
		req, _ := http.NewRequest(http.MethodPost, url, bytes.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("Mcp-Protocol-Version", "2026-07-28")
		req.Header.Set("Mcp-Method", method)
		req.Header.Set("Mcp-Name", name)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		raw, _ := io.ReadAll(resp.Body)
		msg := raw
		if strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
			for _, line := range strings.Split(string(raw), "\n") {
				if d, ok := strings.CutPrefix(line, "data: "); ok && strings.Contains(d, fmt.Sprintf(`"id":%d`, id)) {
					msg = []byte(d)
				}
			}
		}
		var r response
		if err := json.Unmarshal(msg, &r); err != nil {
			t.Fatalf("%s: HTTP %d: %v: %s", method, resp.StatusCode, err, raw)
		}
		return reply{r.Result, r.Error}
	}, stderr
}

// task is a task as the host reads it (CreateTaskResult or tasks/get's).
type task struct {
	ResultType string `json:"resultType"`
	TaskID     string `json:"taskId"`
	Status     string `json:"status"`
	Result     *struct {
		Content []struct {
			Text string `json:"text"`
		} `json:"content"`
		IsError bool `json:"isError"`
	} `json:"result"`
}

func decodeTask(t *testing.T, what string, r reply) task {
	t.Helper()
	if r.rpcErr != nil {
		t.Fatalf("%s: error %s", what, r.rpcErr)
	}
	var got task
	if err := json.Unmarshal(r.res, &got); err != nil {
		t.Fatalf("%s: %v: %s", what, err, r.res)
	}
	return got
}

// callText is a plain result's text and isError.
func callText(t *testing.T, what string, rep reply) (string, bool) {
	t.Helper()
	got := decodeTask(t, what, rep)
	if got.TaskID != "" || got.ResultType == "task" {
		t.Fatalf("%s: a task where a plain result was due: %s", what, rep.res)
	}
	var r struct {
		Content []struct {
			Text string `json:"text"`
		} `json:"content"`
		IsError bool `json:"isError"`
	}
	_ = json.Unmarshal(rep.res, &r)
	var b strings.Builder
	for _, c := range r.Content {
		b.WriteString(c.Text)
	}
	return b.String(), r.IsError
}

func TestUpstreamTasksThroughProxy(t *testing.T) {
	proxy := buildProxy(t)
	for _, tr := range []struct {
		name  string
		start func(*testing.T, string, ...string) (host, *logs)
	}{{"stdio", stdioHost}, {"http", httpHost}} {
		t.Run(tr.name, func(t *testing.T) {
			upURL, upLogs := serveHTTP(t, bin) // web's upstream, its own for this host
			do, stderr := tr.start(t, proxy, "UP_URL="+upURL)
			for _, up := range []struct {
				server string
				logs   *logs  // where the upstream's own log lines are
				line   string // how they appear there
			}{{"up", stderr, `server\.stderr.*line=".*`}, {"web", upLogs, ""}} {
				t.Run(up.server, func(t *testing.T) {
					passThrough(t, do, stderr, up.server, up.logs, up.line)
				})
			}
		})
	}
}

// passThrough drives a task call of server's slow_compute through the
// proxy: created, polled, cancelled (seen in upLogs, the upstream's log
// lines prefixed by line), collected, and calls the proxy refuses.
func passThrough(t *testing.T, do host, stderr *logs, server string, upLogs *logs, line string) {
	slow, denied := server+"__slow_compute", server+"__failing_job"
	call := func(tool string, args map[string]any, tasks bool) reply {
		return do(t, "tools/call", tool, map[string]any{"name": tool, "arguments": args}, tasks)
	}
	get := func(id string) task {
		return decodeTask(t, "tasks/get", do(t, "tasks/get", id, map[string]any{"taskId": id}, true))
	}

	// create: the upstream's task, under the proxy's id
	long := decodeTask(t, "create", call(slow, map[string]any{"seconds": 600, "label": "long"}, true))
	if long.ResultType != "task" || long.TaskID == "" || long.Status != "working" {
		t.Fatalf("created: %+v", long)
	}
	// the call went through the proxy's pipeline: its tool.call event names the route
	stderr.waitFor(t, regexp.MustCompile(`msg=tool\.call tool=`+slow+` server=`+server+` .*status=ok`))
	if got := get(long.TaskID); got.Status != "working" || got.TaskID != long.TaskID {
		t.Fatalf("polled: %+v", got)
	}

	// cancel: the upstream's own run of the task ends cancelled
	if r := do(t, "tasks/cancel", long.TaskID, map[string]any{"taskId": long.TaskID}, true); r.rpcErr != nil {
		t.Fatalf("cancel: %s", r.rpcErr)
	}
	if got := get(long.TaskID); got.Status != "cancelled" {
		t.Fatalf("after cancel: %+v", got)
	}
	upLogs.waitFor(t, regexp.MustCompile(line+`tool\.call tool=slow_compute .*task cancelled by the host`))

	// collect: the upstream's result, through the proxy's size cap
	// as a plain call's result would be
	label := "short-" + strings.Repeat("x", 60)
	short := decodeTask(t, "create", call(slow, map[string]any{"seconds": 0.1, "label": label}, true))
	if short.ResultType != "task" {
		t.Fatalf("created: %+v", short)
	}
	deadline := time.Now().Add(hang)
	got := get(short.TaskID)
	for got.Status == "working" && time.Now().Before(deadline) {
		time.Sleep(50 * time.Millisecond)
		got = get(short.TaskID)
	}
	if got.Status != "completed" || got.Result == nil || len(got.Result.Content) != 1 {
		t.Fatalf("collected: %+v", got)
	}
	collected := got.Result.Content[0].Text
	plain, isErr := callText(t, "plain call", call(slow, map[string]any{"seconds": 0.1, "label": label}, false))
	if isErr || collected != plain || !strings.HasPrefix(collected, "computed short-xxx") || !strings.Contains(collected, "[output truncated") {
		t.Fatalf("collected %q; a plain call through the proxy answers %q (error %v)", collected, plain, isErr)
	}
	if again := get(short.TaskID); again.Result == nil || again.Result.Content[0].Text != collected {
		t.Errorf("collected again: %+v", again)
	}

	// refused by the proxy's pipeline, never sent upstream
	text, isErr := callText(t, "bad arguments", call(slow, map[string]any{"seconds": "soon", "label": "bad"}, true))
	if !isErr || !strings.Contains(text, slow) {
		t.Errorf("bad arguments: %q (error %v); want the proxy's argument check", text, isErr)
	}
	text, isErr = callText(t, "denied tool", call(denied, map[string]any{}, true))
	if !isErr || !strings.Contains(text, denied) {
		t.Errorf("denied tool: %q (error %v); want the proxy's refusal", text, isErr)
	}
	stderr.waitFor(t, regexp.MustCompile(`tool\.blocked tool=`+denied))
	if logs := upLogs.String(); strings.Contains(logs, "tool=failing_job") {
		t.Errorf("a refused call reached the upstream:\n%s", logs)
	}
}
