package main_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os/exec"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolgen-dev/toolgen/internal/model/modeltest"
)

// serveHTTP runs the team binary's serve --http for agent and returns its
// MCP endpoint.
func serveHTTP(t *testing.T, srv *modeltest.Server, agent string) string {
	t.Helper()
	cmd := exec.Command(teamBin, "serve", "--http", "127.0.0.1:0", "--agent", agent)
	cmd.Dir, cmd.Env = root, env(srv)
	out, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	urls := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(out)
		re := regexp.MustCompile(`serving agent .* on (http://\S+)`)
		for sc.Scan() {
			if m := re.FindStringSubmatch(sc.Text()); m != nil {
				select {
				case urls <- m[1]:
				default:
				}
			}
		}
	}()
	select {
	case u := <-urls:
		return u
	case <-time.After(hang):
		t.Fatal("serve --http did not start")
	}
	return ""
}

// rpc posts one request of a 2026-07-28 host that declares the Tasks
// extension (go-sdk v1.8 has no API for tasks).
func rpc(t *testing.T, url, method, name string, params map[string]any, out any) {
	t.Helper()
	params["_meta"] = map[string]any{
		"io.modelcontextprotocol/protocolVersion":    "2026-07-28",
		"io.modelcontextprotocol/clientInfo":         map[string]any{"name": "task-host", "version": "1"},
		"io.modelcontextprotocol/clientCapabilities": map[string]any{"extensions": map[string]any{"io.modelcontextprotocol/tasks": map[string]any{}}},
	}
	body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": method, "params": params})
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
			if d, ok := strings.CutPrefix(line, "data: "); ok && strings.Contains(d, `"id":1`) {
				msg = []byte(d)
			}
		}
	}
	var r struct {
		Result json.RawMessage `json:"result"`
		Error  json.RawMessage `json:"error"`
	}
	if err := json.Unmarshal(msg, &r); err != nil || r.Error != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("%s: HTTP %d %v: %s", method, resp.StatusCode, err, raw)
	}
	if err := json.Unmarshal(r.Result, out); err != nil {
		t.Fatalf("%s: %v: %s", method, err, r.Result)
	}
}

type hostTask struct {
	ResultType string              `json:"resultType"`
	TaskID     string              `json:"taskId"`
	Status     string              `json:"status"`
	Result     *mcp.CallToolResult `json:"result"`
}

func poll(t *testing.T, url, id, want string) hostTask {
	t.Helper()
	deadline := time.Now().Add(hang)
	for {
		var got hostTask
		rpc(t, url, "tasks/get", id, map[string]any{"taskId": id}, &got)
		if got.Status == want {
			return got
		}
		if got.Status != "working" || time.Now().After(deadline) {
			t.Fatalf("task %s is %s; want %s", id, got.Status, want)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// A 2026-07-28 host that declares the Tasks extension gets agent__reader
// as a task: it polls it to completion and collects the reader's answer;
// a second run it cancels stops the sub-agent's model request.
func TestServeSubagentAsTask(t *testing.T) {
	srv := modeltest.NewServer(t)
	var stall atomic.Bool
	srv.Respond(func(req *modeltest.Request) modeltest.Turn {
		if who(req) != "reader" {
			return modeltest.Turn{Status: 400, Message: "unexpected"}
		}
		if stall.Load() {
			return modeltest.Turn{Delay: 2 * hang} // until the client goes away
		}
		return readerScript(req)
	})
	url := serveHTTP(t, srv, "lead")

	// go-sdk as a 2026-07-28 host sees agent__reader listed.
	ctx, cancel := context.WithTimeout(context.Background(), hang)
	defer cancel()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "host", Version: "1"}, nil).Connect(ctx, &mcp.StreamableClientTransport{Endpoint: url}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	if names := toolNames(t, cs); !strings.Contains(strings.Join(names, ","), "agent__reader") {
		t.Fatalf("tools %v", names)
	}

	var created hostTask
	rpc(t, url, "tools/call", "agent__reader", map[string]any{"name": "agent__reader", "arguments": map[string]any{"prompt": "What do the notes say?"}}, &created)
	if created.ResultType != "task" || created.TaskID == "" {
		t.Fatalf("agent__reader: %+v; want a task", created)
	}
	done := poll(t, url, created.TaskID, "completed")
	if done.Result == nil || text(done.Result) != "The notes say the release is planned for Friday." {
		t.Fatalf("collected: %+v", done.Result)
	}

	stall.Store(true)
	before := len(srv.Requests())
	rpc(t, url, "tools/call", "agent__reader", map[string]any{"name": "agent__reader", "arguments": map[string]any{"prompt": "Read slowly."}}, &created)
	deadline := time.Now().Add(hang)
	for len(srv.Requests()) == before {
		if time.Now().After(deadline) {
			t.Fatal("the reader never asked its model")
		}
		time.Sleep(20 * time.Millisecond)
	}
	asked := srv.Requests()[before]
	var ack struct {
		ResultType string `json:"resultType"`
	}
	rpc(t, url, "tasks/cancel", created.TaskID, map[string]any{"taskId": created.TaskID}, &ack)
	if ack.ResultType != "complete" {
		t.Fatalf("cancel ack %+v", ack)
	}
	poll(t, url, created.TaskID, "cancelled")
	for !asked.ClientGone() {
		if time.Now().After(deadline) {
			t.Fatal("the cancelled sub-agent's model request is still open")
		}
		time.Sleep(20 * time.Millisecond)
	}
}
