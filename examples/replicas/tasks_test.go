package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/toolgen-dev/toolgen/runtime/store/redis/redistest"
)

// taskRPC speaks MCP 2026-07-28 with the Tasks extension declared in
// every request's _meta, in raw JSON-RPC (go-sdk has no tasks API).
func taskRPC(addr, method, name string, params map[string]any) (json.RawMessage, *rpcError, error) {
	params["_meta"] = map[string]any{
		"io.modelcontextprotocol/protocolVersion":    "2026-07-28",
		"io.modelcontextprotocol/clientInfo":         map[string]any{"name": "fleet-tasks", "version": "1"},
		"io.modelcontextprotocol/clientCapabilities": map[string]any{"extensions": map[string]any{"io.modelcontextprotocol/tasks": map[string]any{}}},
	}
	body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": method, "params": params})
	req, _ := http.NewRequest(http.MethodPost, "http://"+addr+"/mcp", bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Mcp-Protocol-Version", "2026-07-28")
	req.Header.Set("Mcp-Method", method)
	req.Header.Set("Mcp-Name", name)
	resp, err := client.Do(req)
	if err != nil {
		return nil, nil, err
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, nil, err
	}
	if resp.StatusCode != http.StatusOK {
		return nil, nil, fmt.Errorf("HTTP %d: %s", resp.StatusCode, raw)
	}
	msg := raw
	if strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		sc := bufio.NewScanner(bytes.NewReader(raw))
		for sc.Scan() {
			if d, ok := strings.CutPrefix(sc.Text(), "data: "); ok && strings.Contains(d, `"id":1`) {
				msg = []byte(d)
			}
		}
	}
	var r struct {
		Result json.RawMessage `json:"result"`
		Error  *rpcError       `json:"error"`
	}
	if err := json.Unmarshal(msg, &r); err != nil {
		return nil, nil, fmt.Errorf("not a JSON-RPC answer: %v: %s", err, raw)
	}
	return r.Result, r.Error, nil
}

type rpcError struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
}

type wireTask struct {
	ResultType string `json:"resultType"`
	TaskID     string `json:"taskId"`
	Status     string `json:"status"`
	Result     *struct {
		Content []struct{ Text string } `json:"content"`
	} `json:"result"`
	Error *rpcError `json:"error"`
}

func taskCall(t *testing.T, addr, method, name string, params map[string]any) wireTask {
	t.Helper()
	res, rerr, err := taskRPC(addr, method, name, params)
	if err != nil || rerr != nil {
		t.Fatalf("%s on %s: %v %+v", method, addr, err, rerr)
	}
	var w wireTask
	if err := json.Unmarshal(res, &w); err != nil {
		t.Fatalf("%s on %s: %v: %s", method, addr, err, res)
	}
	return w
}

// startJob creates a job task through addr.
func startJob(t *testing.T, addr string, ms int) string {
	t.Helper()
	w := taskCall(t, addr, "tools/call", "job", map[string]any{"name": "job", "arguments": map[string]any{"ms": ms}})
	if w.ResultType != "task" || w.TaskID == "" || w.Status != "working" {
		t.Fatalf("job through %s: %+v; want a working task", addr, w)
	}
	return w.TaskID
}

// pollUntil reads the task through the given replicas in turn until it
// reaches want (another terminal status fails the test).
func pollUntil(t *testing.T, id, want string, addrs ...string) wireTask {
	t.Helper()
	deadline := time.Now().Add(45 * time.Second)
	for i := 0; ; i++ {
		w := taskCall(t, addrs[i%len(addrs)], "tasks/get", id, map[string]any{"taskId": id})
		if w.Status == want {
			return w
		}
		if w.Status != "working" || time.Now().After(deadline) {
			t.Fatalf("task %s through %s: %+v; want %s", id, addrs[i%len(addrs)], w, want)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// A task created through one replica is polled and collected through the
// others, and one cancelled through a second replica stops on the first.
func TestFleetTaskElsewhere(t *testing.T) {
	srv := redistest.Start(t)
	f := startFleet(t, 3, nil, "--store", srv.URL())
	r1, r2, r3 := f.replicas[0].addr, f.replicas[1].addr, f.replicas[2].addr

	id := startJob(t, r1, 1500)
	w := pollUntil(t, id, "completed", r2, r3)
	if w.Result == nil || len(w.Result.Content) == 0 || w.Result.Content[0].Text != "worked 1500 ms (replica r1)" {
		t.Fatalf("collected through r2/r3: %+v; want r1's result", w)
	}

	id = startJob(t, r1, 120000)
	if _, rerr, err := taskRPC(r2, "tasks/cancel", id, map[string]any{"taskId": id}); err != nil || rerr != nil {
		t.Fatalf("cancel through r2: %v %+v", err, rerr)
	}
	pollUntil(t, id, "cancelled", r3, f.lb)
	// Cancelling again (terminal) is still an ack.
	if _, rerr, err := taskRPC(r3, "tasks/cancel", id, map[string]any{"taskId": id}); err != nil || rerr != nil {
		t.Fatalf("second cancel: %v %+v", err, rerr)
	}
}

// A task whose replica was SIGKILLed reads as failed through the others,
// never as unknown.
func TestFleetTaskOwnerKilled(t *testing.T) {
	srv := redistest.Start(t)
	f := startFleet(t, 3, nil, "--store", srv.URL())
	id := startJob(t, f.replicas[1].addr, 120000)
	pollUntil(t, id, "working", f.replicas[0].addr, f.replicas[2].addr)
	f.replicas[1].kill()
	w := pollUntil(t, id, "failed", f.replicas[0].addr, f.replicas[2].addr, f.lb)
	if w.Error == nil || !strings.Contains(w.Error.Message, "stopped") {
		t.Fatalf("failed task's error: %+v", w.Error)
	}
}
