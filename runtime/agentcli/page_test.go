package agentcli_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
)

// The status page of the built agent binary, as a user meets it: serve
// --http (MCP at /mcp, the page at /ui/ on one listener) and serve --stdio
// --ui (the page beside an MCP host's stdio), driven by a go-sdk MCP
// client, a headless Chromium and plain HTTP. The agent is watcher: the
// hang fixture as server alpha (a copy this test may delete), shout and
// report.

// logBuffer is a process's stderr, read while it runs.
type logBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *logBuffer) add(line string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.b.WriteString(line + "\n")
}

func (l *logBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// served is a running agent binary.
type served struct {
	page  string // http://HOST:PORT of the status page
	mcp   string // http://HOST:PORT/mcp (serve --http only)
	alpha string // alpha's executable: remove it and alpha stays down
	cs    *mcp.ClientSession
	// changed gets a value on every tools/list_changed the client hears.
	changed chan struct{}
	logs    *logBuffer
}

func watcherEnv(t *testing.T, extra ...string) (env []string, alpha string) {
	t.Helper()
	alpha = filepath.Join(t.TempDir(), "alpha")
	data, err := os.ReadFile(alphaBin)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(alpha, data, 0o755); err != nil {
		t.Fatal(err)
	}
	env = append(slices.Clone(agentEnv), "TESTAGENT_ALPHA="+alpha, "TOOLGEN_LOG=info")
	return append(env, extra...), alpha
}

// scan reads stderr into logs and reports the addresses the binary prints.
func scan(r io.Reader, logs *logBuffer) (mcpURL, pageURL chan string) {
	mcpURL, pageURL = make(chan string, 1), make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(r)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		for sc.Scan() {
			line := sc.Text()
			logs.add(line)
			if rest, ok := strings.CutPrefix(line, "status page on "); ok {
				pageURL <- strings.TrimSuffix(rest, "/ui/")
			}
			if _, after, ok := strings.Cut(line, " on http://"); ok && strings.HasPrefix(line, "serving agent") {
				mcpURL <- "http://" + after
			}
		}
		close(mcpURL)
		close(pageURL)
	}()
	return mcpURL, pageURL
}

func await(t *testing.T, c chan string, what string, logs *logBuffer) string {
	t.Helper()
	select {
	case s, ok := <-c:
		if !ok {
			t.Fatalf("the agent exited before printing %s:\n%s", what, logs)
		}
		return s
	case <-time.After(time.Minute):
		t.Fatalf("the agent did not print %s:\n%s", what, logs)
	}
	return ""
}

func newClient(s *served) *mcp.Client {
	s.changed = make(chan struct{}, 64)
	return mcp.NewClient(&mcp.Implementation{Name: "page-test-host", Version: "7.1"}, &mcp.ClientOptions{
		ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) {
			select {
			case s.changed <- struct{}{}:
			default:
			}
		},
	})
}

// serveHTTP runs `serve --http 127.0.0.1:0` and connects an MCP client.
func serveHTTP(t *testing.T, extraEnv ...string) *served {
	t.Helper()
	env, alpha := watcherEnv(t, extraEnv...)
	cmd := exec.Command(agentBin, "serve", "--http", "127.0.0.1:0")
	cmd.Dir, cmd.Env = repoRoot, env
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Signal(syscall.SIGTERM)
		cmd.Wait()
	})
	s := &served{alpha: alpha, logs: &logBuffer{}}
	mcpURL, pageURL := scan(stderr, s.logs)
	s.mcp = await(t, mcpURL, "its MCP address", s.logs)
	s.page = await(t, pageURL, "its page address", s.logs)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	s.cs, err = newClient(s).Connect(ctx, &mcp.StreamableClientTransport{Endpoint: s.mcp}, handshakeRevision)
	if err != nil {
		t.Fatalf("connect %s: %v\n%s", s.mcp, err, s.logs)
	}
	t.Cleanup(func() { s.cs.Close() })
	return s
}

// serveStdio runs `serve --stdio --ui 127.0.0.1:0` as an MCP host does.
func serveStdio(t *testing.T, extraEnv ...string) *served {
	t.Helper()
	env, alpha := watcherEnv(t, extraEnv...)
	cmd := exec.Command(agentBin, "serve", "--stdio", "--ui", "127.0.0.1:0")
	cmd.Dir, cmd.Env = repoRoot, env
	pr, pw := io.Pipe()
	cmd.Stderr = pw
	s := &served{alpha: alpha, logs: &logBuffer{}}
	_, pageURL := scan(pr, s.logs)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	var err error
	s.cs, err = newClient(s).Connect(ctx, &mcp.CommandTransport{Command: cmd}, handshakeRevision)
	if err != nil {
		t.Fatalf("connect over stdio: %v\n%s", err, s.logs)
	}
	t.Cleanup(func() {
		s.cs.Close()
		pw.Close()
	})
	s.page = await(t, pageURL, "its page address", s.logs)
	return s
}

func (s *served) call(t *testing.T, tool string, args map[string]any) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	res, err := s.cs.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: args})
	if err != nil || res.IsError {
		t.Fatalf("%s: %v %+v", tool, err, res)
	}
	return res.Content[0].(*mcp.TextContent).Text
}

// killAlpha removes alpha's executable and kills its process: it stays
// down (red) while the connection keeps trying to restart it.
func (s *served) killAlpha(t *testing.T) {
	t.Helper()
	pid, err := strconv.Atoi(s.call(t, "alpha__pid", nil))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(s.alpha); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
}

type apiStatus struct {
	Agent   string
	Servers []struct{ Name, Health, Error string }
	Tools   []struct{ Name, Reason string }
}

func (s *served) status(t *testing.T) apiStatus {
	t.Helper()
	resp, err := http.Get(s.page + "/api/status")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var st apiStatus
	if resp.StatusCode != http.StatusOK || json.NewDecoder(resp.Body).Decode(&st) != nil {
		t.Fatalf("GET /api/status: %s", resp.Status)
	}
	return st
}

func (st apiStatus) health(server string) string {
	for _, s := range st.Servers {
		if s.Name == server {
			return s.Health
		}
	}
	return ""
}

// openPage opens the page and waits for the agents and a live stream.
func (s *served) openPage(t *testing.T) context.Context {
	t.Helper()
	ctx := tab(t)
	do(t, ctx, "opening the page", chromedp.Navigate(s.page+"/ui/"))
	waitFor(t, ctx, "the agent list and a live event stream",
		`document.querySelector('#agent-list li') !== null && document.getElementById('conn').dataset.state === 'live'`)
	return ctx
}

// The page of a served agent shows its agents, servers and tools; a killed
// server turns red on it without a reload, and `status --addr` shows the
// red the running agent sees; clicking another agent switches the served
// session (the MCP host hears tools/list_changed and sees the new tools);
// a cross-origin POST is refused; /metrics parses and counts the calls.
func TestPageOverHTTP(t *testing.T) {
	s := serveHTTP(t)
	s.page = strings.Replace(s.page, "127.0.0.1", "localhost", 1) // a name, as a user types it
	ctx := s.openPage(t)
	waitFor(t, ctx, "alpha green", `document.querySelector('[data-server="alpha"][data-health="green"]') !== null`)
	if got := eval[string](t, ctx, `document.getElementById('agent-name').textContent`); got != "watcher" {
		t.Errorf("header shows agent %q, want watcher", got)
	}
	agents := eval[[]string](t, ctx, `[...document.querySelectorAll('#agent-list li')].map(li => li.dataset.agent + (li.dataset.current === 'true' ? '*' : ''))`)
	if !slices.Equal(agents, []string{"watcher*", "helper", "gateway", "seeker"}) {
		t.Errorf("agents shown %v, want watcher (current), helper, gateway, seeker", agents)
	}
	st := s.status(t)
	var want []string
	for _, tl := range st.Tools {
		want = append(want, tl.Name)
		if tl.Reason == "" {
			t.Errorf("tool %s has no reason", tl.Name)
		}
	}
	tools := eval[[]string](t, ctx, `[...document.querySelectorAll('#tool-list li')].map(li => li.dataset.tool)`)
	if !slices.Equal(tools, want) || !slices.Contains(tools, "alpha__echo") || !slices.Contains(tools, "shout") {
		t.Errorf("tools shown %v, /api/status has %v", tools, want)
	}

	// The same process, not a fresh copy: status --addr sees green, then red.
	o := agent(t, "status", "--addr", s.page)
	o.want(t, 0)
	if !strings.Contains(o.stdout, "agent watcher (running at") || !regexpLine(o.stdout, "alpha", "green") {
		t.Errorf("status --addr before the kill:\n%s", o.stdout)
	}
	eval[chromedp.Void](t, ctx, `window.sameDocument = true`)
	s.killAlpha(t)
	waitFor(t, ctx, "alpha red", `document.querySelector('[data-server="alpha"][data-health="red"]') !== null`)
	if !eval[bool](t, ctx, `window.sameDocument === true`) {
		t.Error("the page was reloaded")
	}
	o = agent(t, "status", "--addr", s.page, "--json")
	o.want(t, 1) // a red server: status exits 1
	var servers []struct{ Name, Health, Error string }
	if err := json.Unmarshal([]byte(o.stdout), &servers); err != nil || len(servers) != 1 || servers[0].Health != "red" || servers[0].Error == "" {
		t.Errorf("status --addr --json after the kill: %s (%v)", o.stdout, err)
	}
	o = agent(t, "status", "--addr", s.page)
	o.want(t, 1)
	if !regexpLine(o.stdout, "alpha", "red") {
		t.Errorf("status --addr after the kill:\n%s", o.stdout)
	}

	// A page on another origin cannot switch.
	req, _ := http.NewRequest(http.MethodPost, s.page+"/api/switch", strings.NewReader(`{"agent":"seeker"}`))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Origin", "http://evil.example")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusForbidden || s.status(t).Agent != "watcher" {
		t.Fatalf("cross-origin switch: %s, agent %s", resp.Status, s.status(t).Agent)
	}

	drain(s.changed)
	do(t, ctx, "clicking Switch on seeker", chromedp.Click(chromedp.CSS(`[data-agent="seeker"] button`)))
	waitFor(t, ctx, "seeker current", `document.querySelector('[data-agent="seeker"][data-current="true"]') !== null`)
	if got := s.status(t).Agent; got != "seeker" {
		t.Errorf("/api/status agent = %q after the switch", got)
	}
	s.waitListChanged(t)
	s.requireTools(t, "tool_find", "alpha__echo")

	// Metrics: the calls made above, counted by tool and status, and
	// alpha's colour.
	fams := scrape(t, s.page+"/metrics")
	if v := value(fams, "toolgen_tool_calls_total", "tool", "alpha__pid", "status", "ok"); v < 1 {
		t.Errorf("toolgen_tool_calls_total{tool=alpha__pid,status=ok} = %v", v)
	}
	if v := value(fams, "toolgen_server_health", "server", "alpha", "health", "red"); v != 1 {
		t.Errorf("toolgen_server_health{server=alpha,health=red} = %v", v)
	}
	if _, ok := fams["toolgen_tool_call_duration_seconds"]; !ok {
		t.Error("no toolgen_tool_call_duration_seconds")
	}
	if !strings.Contains(s.logs.String(), "msg=serve.client") || !strings.Contains(s.logs.String(), "client=page-test-host client_version=7.1") {
		t.Errorf("the host's name and version were not logged:\n%s", s.logs)
	}
}

// The page beside stdio steers the very process an MCP host runs: a
// switch there reaches the host as tools/list_changed.
func TestPageBesideStdio(t *testing.T) {
	s := serveStdio(t)
	s.call(t, "report", nil) // spilled: the page lists it
	ctx := s.openPage(t)
	waitFor(t, ctx, "alpha green", `document.querySelector('[data-server="alpha"][data-health="green"]') !== null`)
	resp, err := http.Get(s.page + "/api/outputs")
	if err != nil {
		t.Fatal(err)
	}
	var outs struct{ Outputs []struct{ Handle string } }
	json.NewDecoder(resp.Body).Decode(&outs)
	resp.Body.Close()
	if len(outs.Outputs) != 1 {
		t.Fatalf("outputs = %+v, want report's", outs)
	}
	drain(s.changed)
	do(t, ctx, "clicking Switch on seeker", chromedp.Click(chromedp.CSS(`[data-agent="seeker"] button`)))
	waitFor(t, ctx, "seeker current", `document.querySelector('[data-agent="seeker"][data-current="true"]') !== null`)
	s.waitListChanged(t)
	if got := s.status(t).Agent; got != "seeker" {
		t.Errorf("/api/status agent = %q", got)
	}
	s.requireTools(t, "tool_find", "alpha__echo")
}

// --ui on an address other machines reach is refused: serve --stdio has
// no authentication to put in front of the page.
func TestUIRefusesExposedAddress(t *testing.T) {
	env, _ := watcherEnv(t)
	cmd := exec.Command(agentBin, "serve", "--stdio", "--ui", "0.0.0.0:0")
	cmd.Dir, cmd.Env = repoRoot, env
	cmd.Stdin = strings.NewReader("")
	out, err := cmd.CombinedOutput()
	if err == nil || !strings.Contains(string(out), "--ui 0.0.0.0:0 is reachable from other machines") || !strings.Contains(string(out), "--ui 127.0.0.1:PORT") {
		t.Fatalf("serve --ui 0.0.0.0:0: %v\n%s", err, out)
	}
	// issue 21 item 22: the refusal spoke of serve --http and told to add
	// --auth-* flags, which serve --stdio refuses
	if strings.Contains(string(out), "serve --http 0.0.0.0") || strings.Contains(string(out), "require a token") {
		t.Errorf("the refusal speaks of flags that do not apply to --ui:\n%s", out)
	}
}

// Without --addr, status says it starts its own servers.
func TestStatusSaysItStartsItsOwn(t *testing.T) {
	o := agent(t, "status")
	o.want(t, 0)
	if !strings.Contains(o.stderr, "starting its own copy of the agent's servers") || !strings.Contains(o.stderr, "--addr") {
		t.Errorf("stderr:\n%s", o.stderr)
	}
	o = agent(t, "status", "--addr", "127.0.0.1:1")
	if o.code != 1 || !strings.Contains(o.stderr, "no running agent answers at http://127.0.0.1:1/api/status") {
		t.Errorf("status --addr with nothing there: %d\n%s", o.code, o.stderr)
	}
}

func (s *served) waitListChanged(t *testing.T) {
	t.Helper()
	select {
	case <-s.changed:
	case <-time.After(time.Minute):
		t.Fatalf("the MCP host got no tools/list_changed:\n%s", s.logs)
	}
}

// requireTools checks the host's tools/list has have and not gone.
func (s *served) requireTools(t *testing.T, have, gone string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	res, err := s.cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tl := range res.Tools {
		names = append(names, tl.Name)
	}
	if !slices.Contains(names, have) || slices.Contains(names, gone) {
		t.Errorf("the host lists %v: want %s and not %s", names, have, gone)
	}
}

func drain(c chan struct{}) {
	for len(c) > 0 {
		<-c
	}
}

// regexpLine reports whether a line of out starts with name and has word.
func regexpLine(out, name, word string) bool {
	for line := range strings.SplitSeq(out, "\n") {
		if f := strings.Fields(line); len(f) > 1 && f[0] == name && f[1] == word {
			return true
		}
	}
	return false
}

func scrape(t *testing.T, url string) map[string]*dto.MetricFamily {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	p := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := p.TextToMetricFamilies(resp.Body)
	if err != nil {
		t.Fatalf("parsing %s: %v", url, err)
	}
	return fams
}

// value is the value of the series of a family with the label pairs.
func value(fams map[string]*dto.MetricFamily, name string, labels ...string) float64 {
	f := fams[name]
	if f == nil {
		return -1
	}
next:
	for _, m := range f.Metric {
		for i := 0; i+1 < len(labels); i += 2 {
			found := false
			for _, lp := range m.Label {
				if lp.GetName() == labels[i] && lp.GetValue() == labels[i+1] {
					found = true
				}
			}
			if !found {
				continue next
			}
		}
		switch {
		case m.Counter != nil:
			return m.Counter.GetValue()
		case m.Gauge != nil:
			return m.Gauge.GetValue()
		}
	}
	return -1
}

// TOOLGEN_LOG_FORMAT=json makes every log line one JSON object, the
// events of the MCP connections included.
func TestLogFormatJSON(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, agentBin, "call", "shout", `{"text":"hi"}`)
	cmd.Dir = repoRoot
	cmd.Env = append(slices.Clone(agentEnv), "TOOLGEN_LOG=info", "TOOLGEN_LOG_FORMAT=json")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("call shout: %v\n%s", err, stderr.String())
	}
	msgs := map[string]bool{}
	for line := range strings.SplitSeq(strings.TrimSpace(stderr.String()), "\n") {
		var rec struct{ Msg, Level string }
		if err := json.Unmarshal([]byte(line), &rec); err != nil || rec.Msg == "" {
			t.Fatalf("not a JSON log line: %q (%v)", line, err)
		}
		msgs[rec.Msg] = true
	}
	for _, want := range []string{"server.start", "agent.build", "tool.call"} {
		if !msgs[want] {
			t.Errorf("no %s line in:\n%s", want, stderr.String())
		}
	}
}
