package main

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/toolgen-dev/toolgen/runtime/store/redis/redistest"
)

// askHost is a 2026-07-28 host that can elicit, calling ask on addr;
// extra adds params (the request state and answers of a retry).
func askHost(t *testing.T, addr, extra string) map[string]any {
	t.Helper()
	meta := `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"elicitation":{"form":{}}}}`
	body := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"ask","arguments":{},` + meta + extra + `}}`
	req, _ := http.NewRequest(http.MethodPost, "http://"+addr+"/mcp", strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Mcp-Protocol-Version", "2026-07-28")
	req.Header.Set("Mcp-Method", "tools/call")
	req.Header.Set("Mcp-Name", "ask")
	resp, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	line := string(b)
	if i := strings.Index(line, "data: "); i >= 0 {
		line = strings.TrimSpace(strings.SplitN(line[i+6:], "\n", 2)[0])
	}
	var m map[string]any
	if err := json.Unmarshal([]byte(line), &m); err != nil {
		t.Fatalf("answer of %s: %q: %v", addr, b, err)
	}
	return m
}

// answer is the retry of an input-required result: its state, and value
// as the answer to its one question.
func answer(t *testing.T, m map[string]any, value map[string]any) string {
	t.Helper()
	res, _ := m["result"].(map[string]any)
	if res["resultType"] != "input_required" {
		t.Fatalf("want an input_required result, got %v", m)
	}
	asks, _ := res["inputRequests"].(map[string]any)
	if len(asks) != 1 {
		t.Fatalf("inputRequests = %v, want one question", asks)
	}
	answers := map[string]any{}
	for k := range asks {
		answers[k] = map[string]any{"action": "accept", "content": value}
	}
	b, _ := json.Marshal(answers)
	return fmt.Sprintf(`,"requestState":%q,"inputResponses":%s`, res["requestState"], b)
}

func greeting(t *testing.T, m map[string]any) string {
	t.Helper()
	res, _ := m["result"].(map[string]any)
	if res["resultType"] != "complete" {
		t.Fatalf("want a complete result, got %v", m)
	}
	c, _ := res["content"].([]any)
	if len(c) != 1 {
		t.Fatalf("content: %v", res)
	}
	s, _ := c[0].(map[string]any)["text"].(string)
	return s
}

// A tool call that asks its host twice, each round answered through a
// different replica: asked on r1, the name answered through r2 (which
// returns r1's next question), the confirmation through r3 (which returns
// the result r1 computed). Then the same through the balancer, round robin.
func TestFleetInputRequiredRounds(t *testing.T) {
	srv := redistest.Start(t)
	f := startFleet(t, 3, nil, "--store", srv.URL())
	r1, r2, r3 := f.replicas[0].addr, f.replicas[1].addr, f.replicas[2].addr

	round1 := askHost(t, r1, "")
	round2 := askHost(t, r2, answer(t, round1, map[string]any{"name": "Ada"}))
	if q := fmt.Sprint(round2); !strings.Contains(q, "Greet Ada?") {
		t.Fatalf("round 2 through r2 = %v, want r1's second question", round2)
	}
	done := askHost(t, r3, answer(t, round2, map[string]any{"ok": true}))
	if got := greeting(t, done); got != "Hello, Ada! (asked by replica r1)" {
		t.Fatalf("result through r3 = %q", got)
	}

	for i := range 3 {
		first := askHost(t, f.lb, "")
		second := askHost(t, f.lb, answer(t, first, map[string]any{"name": fmt.Sprint("Bo", i)}))
		got := greeting(t, askHost(t, f.lb, answer(t, second, map[string]any{"ok": true})))
		if !strings.HasPrefix(got, fmt.Sprintf("Hello, Bo%d! (asked by replica r", i)) {
			t.Fatalf("through the balancer, call %d = %q", i, got)
		}
	}
}
