package tasks

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolgen-dev/toolgen/runtime"
	"github.com/toolgen-dev/toolgen/runtime/decl"
	"github.com/toolgen-dev/toolgen/runtime/serve"
)

// laterSession lists a tool declared task = "after_input": it asks the
// user's name, continues as a task, then asks to confirm (through the
// task) and greets. ended gets how each call ended.
type laterSession struct {
	taskSession
	ended chan string
}

func (laterSession) Tools() []runtime.ToolInfo {
	return []runtime.ToolInfo{{Name: "later", Kind: decl.KindGo, InputSchema: json.RawMessage(`{"type":"object"}`), Meta: mcp.Meta{MetaKey: AfterInput}}}
}

func (s laterSession) Call(ctx context.Context, _ string, _ json.RawMessage) runtime.Result {
	r := s.call(ctx)
	s.ended <- r.Result
	return r
}

func (laterSession) call(ctx context.Context) runtime.Result {
	nameSchema := map[string]any{"type": "object", "properties": map[string]any{"name": map[string]any{"type": "string"}}}
	res, err := runtime.Elicit(runtime.AskAs(ctx, "user_name"), &mcp.ElicitParams{Message: "Name?", RequestedSchema: nameSchema})
	if err != nil {
		return runtime.Result{Result: "ask: " + err.Error()}
	}
	name, _ := res.Content["name"].(string)
	if err := runtime.ContinueAsTask(ctx); err != nil {
		return runtime.Result{Result: "continue: " + err.Error()}
	}
	ok, err := runtime.Elicit(ctx, &mcp.ElicitParams{Message: "Greet " + name + "?", RequestedSchema: map[string]any{"type": "object"}})
	if err != nil {
		return runtime.Result{Result: "confirm: " + err.Error()}
	}
	return runtime.Result{OK: true, Result: fmt.Sprintf("Hello, %s (%s)", name, ok.Action), Kind: decl.KindGo}
}

// rawHost is a 2026-07-28 host on stdio: every request carries its
// revision and capabilities in _meta.
type rawHost struct {
	t   *testing.T
	w   io.Writer
	mu  sync.Mutex
	got map[string]chan map[string]any
	n   int
}

func newRawHost(t *testing.T, s *serve.Server) *rawHost {
	cr, sw := io.Pipe()
	sr, cw := io.Pipe()
	done := make(chan error, 1)
	go func() { done <- s.ServeIO(context.Background(), sr, sw); sw.Close() }()
	h := &rawHost{t: t, w: cw, got: map[string]chan map[string]any{}}
	go func() {
		in := bufio.NewScanner(cr)
		in.Buffer(nil, 1<<20)
		for in.Scan() {
			var m map[string]any
			if json.Unmarshal(in.Bytes(), &m) != nil {
				continue
			}
			id, _ := m["id"].(string)
			h.box(id) <- m
		}
	}()
	t.Cleanup(func() { cw.Close(); <-done })
	return h
}

func (h *rawHost) box(id string) chan map[string]any {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.got[id] == nil {
		h.got[id] = make(chan map[string]any, 1)
	}
	return h.got[id]
}

// request sends method with params (a JSON object's members, _meta added)
// and returns the result, failing on an error or no answer in 20 s.
func (h *rawHost) request(method, params string) map[string]any {
	h.t.Helper()
	h.n++
	id := fmt.Sprint("r", h.n)
	meta := `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"raw","version":"1"},` +
		`"io.modelcontextprotocol/clientCapabilities":{"elicitation":{"form":{}},"extensions":{"` + ExtensionID + `":{}}}}`
	if params != "" {
		meta += ","
	}
	if _, err := fmt.Fprintf(h.w, `{"jsonrpc":"2.0","id":%q,"method":%q,"params":{%s%s}}`+"\n", id, method, meta, params); err != nil {
		h.t.Fatal(err)
	}
	select {
	case m := <-h.box(id):
		res, ok := m["result"].(map[string]any)
		if !ok {
			h.t.Fatalf("%s: %v", method, m)
		}
		return res
	case <-time.After(20 * time.Second):
		h.t.Fatalf("%s: no answer", method)
		return nil
	}
}

// untilStatus polls tasks/get until the task is in status.
func (h *rawHost) untilStatus(id, status string) map[string]any {
	h.t.Helper()
	for range 400 {
		task := h.request(MethodGet, `"taskId":"`+id+`"`)
		if task["status"] == status {
			return task
		}
		time.Sleep(25 * time.Millisecond)
	}
	h.t.Fatalf("task %s never %s", id, status)
	return nil
}

// A tool declared task = "after_input" asks a 2026-07-28 host in an
// input-required round (no task yet); the retry with the answer gets the
// task the call continues as (no requestState, no inputRequests); what the
// call asks after that goes through the task (tasks/get, tasks/update),
// and the task's result carries the first round's answer.
func TestAfterInputAsksThenContinuesAsTask(t *testing.T) {
	sess := laterSession{ended: make(chan string, 4)}
	s := serve.New(sess, serve.Options{})
	defer s.Close()
	h := newRawHost(t, s)

	first := h.request("tools/call", `"name":"later","arguments":{}`)
	if first["resultType"] != "input_required" || first["taskId"] != nil {
		t.Fatalf("round 1 = %v; want input_required without a task", first)
	}
	if _, ok := first["inputRequests"].(map[string]any)["user_name"]; !ok {
		t.Fatalf("round 1 asks %v; want user_name", first["inputRequests"])
	}
	state, _ := first["requestState"].(string)
	second := h.request("tools/call", `"name":"later","arguments":{},"requestState":"`+state+`","inputResponses":{"user_name":{"action":"accept","content":{"name":"Ada"}}}`)
	id, _ := second["taskId"].(string)
	if second["resultType"] != "task" || id == "" {
		t.Fatalf("round 2 = %v; want a task", second)
	}
	for _, k := range []string{"requestState", "inputRequests", "content"} {
		if _, ok := second[k]; ok {
			t.Errorf("round 2 carries %s: %v", k, second)
		}
	}

	asking := h.untilStatus(id, string(InputRequired))
	asks, _ := asking["inputRequests"].(map[string]any)
	if len(asks) != 1 {
		t.Fatalf("the task asks %v; want the confirmation", asking)
	}
	var key string
	for k := range asks {
		key = k
	}
	if !strings.Contains(fmt.Sprint(asks[key]), "Greet Ada?") {
		t.Errorf("the task asks %v; want Greet Ada?", asks[key])
	}
	h.request(MethodUpdate, `"taskId":"`+id+`","inputResponses":{"`+key+`":{"action":"accept","content":{}}}`)
	done := h.untilStatus(id, string(Completed))
	if b, _ := json.Marshal(done["result"]); !strings.Contains(string(b), "Hello, Ada (accept)") {
		t.Errorf("task result = %s; want the greeting with the round's answer", b)
	}
	if got := <-sess.ended; got != "Hello, Ada (accept)" {
		t.Errorf("the call ended with %q", got)
	}
}

// Cancelling the task ends the call it continued as.
func TestAfterInputTaskCancelEndsTheCall(t *testing.T) {
	sess := laterSession{ended: make(chan string, 4)}
	s := serve.New(sess, serve.Options{})
	defer s.Close()
	h := newRawHost(t, s)
	first := h.request("tools/call", `"name":"later","arguments":{}`)
	state, _ := first["requestState"].(string)
	second := h.request("tools/call", `"name":"later","arguments":{},"requestState":"`+state+`","inputResponses":{"user_name":{"action":"accept","content":{"name":"Bo"}}}`)
	id, _ := second["taskId"].(string)
	h.untilStatus(id, string(InputRequired))
	h.request(MethodCancel, `"taskId":"`+id+`"`)
	select {
	case got := <-sess.ended:
		if !strings.HasPrefix(got, "confirm: ") {
			t.Errorf("the call ended with %q; want its question cancelled", got)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("the call still runs after its task was cancelled")
	}
	h.untilStatus(id, string(Cancelled))
}

// A host without the extension gets the call as a plain one: asked in a
// round, answered with the result (ContinueAsTask does nothing).
func TestAfterInputWithoutTasksIsPlain(t *testing.T) {
	sess := laterSession{ended: make(chan string, 4)}
	s := serve.New(sess, serve.Options{})
	defer s.Close()
	h := newRawHost(t, s)
	meta := `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"raw","version":"1"},"io.modelcontextprotocol/clientCapabilities":{"elicitation":{"form":{}}}}`
	send := func(id, params string) map[string]any {
		fmt.Fprintf(h.w, `{"jsonrpc":"2.0","id":%q,"method":"tools/call","params":{%s,%s}}`+"\n", id, meta, params)
		select {
		case m := <-h.box(id):
			r, _ := m["result"].(map[string]any)
			return r
		case <-time.After(20 * time.Second):
			t.Fatal("no answer")
			return nil
		}
	}
	first := send("a", `"name":"later","arguments":{}`)
	if first["resultType"] != "input_required" {
		t.Fatalf("round 1 = %v", first)
	}
	second := send("b", `"name":"later","arguments":{},"requestState":"`+first["requestState"].(string)+`","inputResponses":{"user_name":{"action":"accept","content":{"name":"Cy"}}}`)
	if second["resultType"] != "input_required" {
		t.Fatalf("round 2 = %v; want the confirmation asked in a round", second)
	}
	var key string
	for k := range second["inputRequests"].(map[string]any) {
		key = k
	}
	third := send("c", `"name":"later","arguments":{},"requestState":"`+second["requestState"].(string)+`","inputResponses":{"`+key+`":{"action":"accept","content":{}}}`)
	if third["resultType"] != "complete" || !strings.Contains(fmt.Sprint(third["content"]), "Hello, Cy (accept)") {
		t.Errorf("round 3 = %v; want the plain result", third)
	}
}

// A host of 2025-11-25 that declared the extension gets the task at once:
// it has no input-required rounds to be asked in first.
func TestAfterInputOlderHostGetsTaskAtOnce(t *testing.T) {
	sess := laterSession{ended: make(chan string, 4)}
	s := serve.New(sess, serve.Options{})
	defer s.Close()
	h := newRawHost(t, s)
	fmt.Fprintf(h.w, `{"jsonrpc":"2.0","id":"i","method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{"elicitation":{},"extensions":{"%s":{}}},"clientInfo":{"name":"h","version":"1"}}}`+"\n", ExtensionID)
	<-h.box("i")
	fmt.Fprint(h.w, `{"jsonrpc":"2.0","method":"notifications/initialized"}`+"\n")
	fmt.Fprint(h.w, `{"jsonrpc":"2.0","id":"c","method":"tools/call","params":{"name":"later","arguments":{}}}`+"\n")
	select {
	case m := <-h.box("c"):
		if r, _ := m["result"].(map[string]any); r["resultType"] != "task" || r["taskId"] == nil {
			t.Errorf("tools/call = %v; want a task", m)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("no answer")
	}
}
