package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/toolgen-dev/toolgen/runtime/store/redis/redistest"
)

// The fleet tests run the built agent binary as 3 replicas on loopback
// ports behind HAProxy (round robin, no stickiness) with one redis-server:
// what deploy/local/run.sh runs by hand.

var (
	buildOnce sync.Once
	agentBin  string
	buildErr  error
)

func agentBinary(t *testing.T) string { return agentBinaryB(t) }

func agentBinaryB(t testing.TB) string {
	t.Helper()
	buildOnce.Do(func() {
		dir, err := os.MkdirTemp("", "replicas-agent-")
		if err != nil {
			buildErr = err
			return
		}
		agentBin = filepath.Join(dir, "replicas-agent")
		out, err := exec.Command("go", "build", "-o", agentBin, ".").CombinedOutput()
		if err != nil {
			buildErr = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return agentBin
}

// newServe is the command of one replica serving on addr.
func newServe(bin, addr string, args []string) *exec.Cmd {
	return exec.Command(bin, append([]string{"serve", "--http", addr}, args...)...)
}

func itoa(n int) string { return fmt.Sprint(n) }

// replica is one running agent process.
type replica struct {
	name string
	addr string
	cmd  *exec.Cmd
	log  *syncBuffer
	done chan struct{}
}

// fleet is N replicas behind HAProxy, sharing a store.
type fleet struct {
	t        *testing.T
	replicas []*replica
	lb       string // HAProxy's host:port
}

type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// waitFor returns the log once it holds substr, or as it is after 10 s:
// the process writes its event before answering, but the copy of its
// stderr into the buffer may come a moment after the answer.
func (s *syncBuffer) waitFor(substr string) string {
	deadline := time.Now().Add(10 * time.Second)
	for {
		if out := s.String(); strings.Contains(out, substr) || time.Now().After(deadline) {
			return out
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// startFleet runs n replicas with serve's extra args and HAProxy in front.
func startFleet(t *testing.T, n int, env []string, args ...string) *fleet {
	t.Helper()
	redistest.Need(t, "redis-server", "haproxy")
	return startFleetOf(t, agentBinary(t), n, env, args...)
}

// startFleetOf is startFleet with another agent binary.
func startFleetOf(t *testing.T, bin string, n int, env []string, args ...string) *fleet {
	t.Helper()
	redistest.Need(t, "redis-server", "haproxy")
	f := &fleet{t: t}
	for i := range n {
		r := &replica{name: fmt.Sprintf("r%d", i+1), addr: fmt.Sprintf("127.0.0.1:%d", redistest.FreePort(t)), log: &syncBuffer{}, done: make(chan struct{})}
		r.cmd = newServe(bin, r.addr, args)
		r.cmd.Env = append(append(os.Environ(), "REPLICA="+r.name), env...)
		r.cmd.Dir = t.TempDir()
		r.cmd.Stdout, r.cmd.Stderr = r.log, r.log
		if err := r.cmd.Start(); err != nil {
			t.Fatal(err)
		}
		go func() { r.cmd.Wait(); close(r.done) }()
		f.replicas = append(f.replicas, r)
		t.Cleanup(func() { r.stop() })
	}
	for _, r := range f.replicas {
		if err := redistest.WaitPort(r.addr, 30*time.Second); err != nil {
			t.Fatalf("replica %s: %v\n%s", r.name, err, r.log)
		}
	}
	f.lb = fmt.Sprintf("127.0.0.1:%d", redistest.FreePort(t))
	cfg := filepath.Join(t.TempDir(), "haproxy.cfg")
	if err := os.WriteFile(cfg, []byte(haproxyConfig(f.lb, f.replicas)), 0o600); err != nil {
		t.Fatal(err)
	}
	lb := exec.Command("haproxy", "-db", "-f", cfg)
	lbLog := &syncBuffer{}
	lb.Stdout, lb.Stderr = lbLog, lbLog
	if err := lb.Start(); err != nil {
		t.Fatal(err)
	}
	lbDone := make(chan struct{})
	go func() { lb.Wait(); close(lbDone) }()
	t.Cleanup(func() {
		lb.Process.Kill()
		<-lbDone
	})
	if err := redistest.WaitPort(f.lb, 10*time.Second); err != nil {
		t.Fatalf("haproxy: %v\n%s", err, lbLog)
	}
	return f
}

// haproxyConfig is the load balancer of deploy/local/run.sh: round robin,
// no stickiness, replicas checked on /readyz, a request that could not
// reach a replica sent to another.
func haproxyConfig(front string, rs []*replica) string {
	var b strings.Builder
	fmt.Fprintf(&b, `global
  maxconn 4000
defaults
  mode http
  timeout connect 2s
  timeout client 30s
  timeout server 30s
  retries 2
  option redispatch
  retry-on conn-failure empty-response response-timeout
frontend agents
  bind %s
  default_backend replicas
backend replicas
  balance roundrobin
  option httpchk GET /readyz
  default-server inter 300ms fall 2 rise 2
  timeout check 3s
`, front)
	for _, r := range rs {
		fmt.Fprintf(&b, "  server %s %s check\n", r.name, r.addr)
	}
	return b.String()
}

func (r *replica) stop() {
	select {
	case <-r.done:
		return
	default:
	}
	r.cmd.Process.Signal(os.Interrupt)
	select {
	case <-r.done:
	case <-time.After(10 * time.Second):
		r.cmd.Process.Kill()
		<-r.done
	}
}

// kill ends the replica with SIGKILL: no shutdown, no goodbye.
func (r *replica) kill() {
	r.cmd.Process.Kill()
	<-r.done
}

// rpcResult is a tools/call answer: the tool's text and whether it is an
// error result; err is a failure of the request itself.
type rpcResult struct {
	Text    string
	IsError bool
	Status  int
	Err     error
	// Transport: the request or its answer broke on the way (connection
	// refused or cut, a balancer's 5xx): the client may retry it.
	Transport bool
}

var client = &http.Client{Timeout: 20 * time.Second}

// callTool posts one tools/call to addr/mcp on its own, without a session:
// stateless HTTP lets any request reach any replica.
func callTool(addr, tool string, args any) rpcResult { return callToolAs(addr, "", tool, args) }

// callToolAs is callTool with a bearer token ("": none).
func callToolAs(addr, token, tool string, args any) rpcResult {
	body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": "tools/call",
		"params": map[string]any{"name": tool, "arguments": args}})
	req, _ := http.NewRequest(http.MethodPost, "http://"+addr+"/mcp", bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Mcp-Protocol-Version", "2025-11-25")
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := client.Do(req)
	if err != nil {
		return rpcResult{Err: err, Transport: true}
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		return rpcResult{Status: resp.StatusCode, Err: err, Transport: true}
	}
	if resp.StatusCode != http.StatusOK {
		return rpcResult{Status: resp.StatusCode, Err: fmt.Errorf("HTTP %d: %s", resp.StatusCode, raw), Transport: resp.StatusCode >= 500}
	}
	msg := raw
	if strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		msg = nil
		sc := bufio.NewScanner(bytes.NewReader(raw))
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			if d, ok := strings.CutPrefix(sc.Text(), "data: "); ok && strings.Contains(d, `"id":1`) {
				msg = []byte(d)
			}
		}
	}
	var r struct {
		Result *struct {
			Content []struct{ Text string } `json:"content"`
			IsError bool                    `json:"isError"`
		} `json:"result"`
		Error *struct{ Message string } `json:"error"`
	}
	if err := json.Unmarshal(msg, &r); err != nil {
		return rpcResult{Status: resp.StatusCode, Err: fmt.Errorf("not a JSON-RPC answer: %v: %s", err, raw)}
	}
	if r.Error != nil {
		return rpcResult{Status: resp.StatusCode, Err: fmt.Errorf("JSON-RPC error: %s", r.Error.Message)}
	}
	var text strings.Builder
	for _, c := range r.Result.Content {
		text.WriteString(c.Text)
	}
	return rpcResult{Text: text.String(), IsError: r.Result.IsError, Status: resp.StatusCode}
}

// spill calls report on addr and returns the handle of its spilled output.
func spill(t *testing.T, addr string, lines int) string {
	t.Helper()
	r := callTool(addr, "report", map[string]int{"lines": lines})
	if r.Err != nil || r.IsError {
		t.Fatalf("report on %s: %+v", addr, r)
	}
	var h struct {
		ToolOutput struct{ Handle string } `json:"tool_output"`
	}
	if err := json.Unmarshal([]byte(r.Text), &h); err != nil || h.ToolOutput.Handle == "" {
		t.Fatalf("report on %s did not spill: %s", addr, r.Text)
	}
	return h.ToolOutput.Handle
}

// readAll pages through a spilled output on addr.
func readAll(addr, handle string) (string, error) {
	var out strings.Builder
	for off := 0; ; {
		r := callTool(addr, "output_read", map[string]any{"handle": handle, "offset": off})
		if r.Err != nil {
			return "", r.Err
		}
		if r.IsError {
			return "", fmt.Errorf("output_read: %s", r.Text)
		}
		var p struct {
			Content    string `json:"content"`
			NextOffset int    `json:"next_offset"`
			EOF        bool   `json:"eof"`
		}
		if err := json.Unmarshal([]byte(r.Text), &p); err != nil {
			return "", fmt.Errorf("output_read page: %v: %s", err, r.Text)
		}
		out.WriteString(p.Content)
		if p.EOF {
			return out.String(), nil
		}
		off = p.NextOffset
	}
}

func withTimeout(t *testing.T, d time.Duration) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	t.Cleanup(cancel)
	return ctx
}
