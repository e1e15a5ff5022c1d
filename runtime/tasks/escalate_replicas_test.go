package tasks

import (
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/toolgen-dev/toolgen/runtime/serve"
	"github.com/toolgen-dev/toolgen/runtime/store"
)

// sharedLater is laterSession on replicas that share st.
type sharedLater struct {
	laterSession
	st store.Store
}

func (s sharedLater) SharedStore() store.Store { return s.st }
func (sharedLater) Close() error               { return nil }

func replica(t *testing.T, st store.Store) string {
	t.Helper()
	cl := serve.NewClients(func(context.Context) (serve.OwnedSession, error) {
		return sharedLater{laterSession{ended: make(chan string, 4)}, st}, nil
	}, serve.Options{Stateless: true, Store: st})
	ctx, cancel := context.WithCancel(context.Background())
	addrc := make(chan net.Addr, 1)
	done := make(chan error, 1)
	go func() { done <- cl.ListenAndServe(ctx, "127.0.0.1:0", func(a net.Addr) { addrc <- a }) }()
	t.Cleanup(func() { cancel(); <-done })
	return "http://" + (<-addrc).String() + "/mcp"
}

// post sends one 2026-07-28 request over HTTP (name: the Mcp-Name header)
// and returns its result.
func post(t *testing.T, url, method, name, params string) map[string]any {
	t.Helper()
	meta := `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"h","version":"1"},` +
		`"io.modelcontextprotocol/clientCapabilities":{"elicitation":{"form":{}},"extensions":{"` + ExtensionID + `":{}}}}`
	body := `{"jsonrpc":"2.0","id":1,"method":"` + method + `","params":{` + meta + `,` + params + `}}`
	req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
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
	b, _ := io.ReadAll(resp.Body)
	line := string(b)
	if i := strings.Index(line, "data: "); i >= 0 {
		line = strings.TrimSpace(strings.SplitN(line[i+6:], "\n", 2)[0])
	}
	var m map[string]any
	if err := json.Unmarshal([]byte(line), &m); err != nil {
		t.Fatalf("%s: response %q: %v", method, b, err)
	}
	res, ok := m["result"].(map[string]any)
	if !ok {
		t.Fatalf("%s: %v", method, m)
	}
	return res
}

// Two replicas share a store: the round asked on one is answered through
// the other, and that retry gets the task the call continued as (on the
// first); the task is polled, answered and collected through the second.
func TestAfterInputAcrossReplicas(t *testing.T) {
	serve.EnableSharedRounds()
	st := store.NewMemory()
	defer st.Close()
	a, b := replica(t, st), replica(t, st)

	first := post(t, a, "tools/call", "later", `"name":"later","arguments":{}`)
	if first["resultType"] != "input_required" {
		t.Fatalf("round 1 = %v", first)
	}
	second := post(t, b, "tools/call", "later", `"name":"later","arguments":{},"requestState":"`+first["requestState"].(string)+
		`","inputResponses":{"user_name":{"action":"accept","content":{"name":"Ada"}}}`)
	id, _ := second["taskId"].(string)
	if second["resultType"] != "task" || id == "" || second["requestState"] != nil {
		t.Fatalf("round 2 through the other replica = %v; want the task", second)
	}
	poll := func(status Status) map[string]any {
		for range 400 {
			task := post(t, b, MethodGet, id, `"taskId":"`+id+`"`)
			if task["status"] == string(status) {
				return task
			}
			time.Sleep(25 * time.Millisecond)
		}
		t.Fatalf("task never %s", status)
		return nil
	}
	var key string
	for k := range poll(InputRequired)["inputRequests"].(map[string]any) {
		key = k
	}
	post(t, b, MethodUpdate, id, `"taskId":"`+id+`","inputResponses":{"`+key+`":{"action":"accept","content":{}}}`)
	if got, _ := json.Marshal(poll(Completed)["result"]); !strings.Contains(string(got), "Hello, Ada (accept)") {
		t.Errorf("result = %s", got)
	}
}
