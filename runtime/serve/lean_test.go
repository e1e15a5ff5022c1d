package serve

import (
	"encoding/json"
	"fmt"
	"reflect"
	"testing"
	"time"
)

// A tools/call answered on the lean path gets the response go-sdk's path
// gives the same call: the same result, under the same id.
func TestLeanCallMatchesGoSDK(t *testing.T) {
	s := New(newFakeSession(), Options{})
	defer s.Close()
	c := startRaw(t, s)
	c.initialize()
	for i, call := range []struct{ name, args, id string }{
		{"echo", `{"text":"<a & b>"}`, `7`},
		{"echo", `{ "text" : "x\u00e9\n" }`, `"str-id"`},
		{"echo", `null`, `-3`},
		{"fail", `{}`, `9007199254740992`},
		{"boom", `{}`, `"boom"`},
		{"nope", `{}`, `0`},
	} {
		lean := fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"method":"tools/call","params":{"name":%q,"arguments":%s}}`+"\n", call.id, call.name, call.args)
		// an unknown member of params sends the same call to go-sdk
		viaSDK := fmt.Sprintf(`{"jsonrpc":"2.0","id":"sdk-%d","method":"tools/call","params":{"name":%q,"arguments":%s,"x-other":1}}`+"\n", i, call.name, call.args)
		c.send([]byte(lean))
		got := c.wait(call.id)
		c.send([]byte(viaSDK))
		want := c.wait(fmt.Sprintf(`"sdk-%d"`, i))
		for _, m := range []map[string]any{got, want} {
			delete(m, "id")
			if r, ok := m["result"].(map[string]any); ok {
				if meta, ok := r["_meta"].(map[string]any); ok {
					delete(meta, "toolgen.dev/latency_ms")
				}
			}
		}
		if !reflect.DeepEqual(got, want) {
			g, _ := json.Marshal(got)
			w, _ := json.Marshal(want)
			t.Errorf("%s:\nlean   %s\ngo-sdk %s", lean, g, w)
		}
	}
}

// notifications/cancelled cancels a lean call, whose response still comes
// (as go-sdk's does); an id in flight is refused as go-sdk refuses it.
func TestLeanCallCancelAndDuplicateID(t *testing.T) {
	f := newFakeSession()
	f.slowStarted = make(chan struct{}, 1)
	s := New(f, Options{})
	defer s.Close()
	c := startRaw(t, s)
	c.initialize()
	c.send([]byte(`{"jsonrpc":"2.0","id":41,"method":"tools/call","params":{"name":"slow","arguments":{}}}` + "\n"))
	select {
	case <-f.slowStarted:
	case <-time.After(10 * time.Second):
		t.Fatal("slow did not start")
	}
	// the same id again, on either path: refused without an id
	c.send([]byte(`{"jsonrpc":"2.0","id":41,"method":"tools/call","params":{"name":"echo","arguments":{}}}` + "\n"))
	c.send([]byte(`{"jsonrpc":"2.0","id":41,"method":"tools/list"}` + "\n"))
	deadline := time.Now().Add(10 * time.Second)
	for {
		c.mu.Lock()
		refused := c.got["null"]
		c.mu.Unlock()
		if refused != nil {
			if e, _ := refused["error"].(map[string]any); e == nil || e["code"] != float64(-32600) {
				t.Errorf("refusal = %v", refused)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("a reused id was not refused")
		}
		time.Sleep(5 * time.Millisecond)
	}
	if c.has("41") {
		t.Fatal("the slow call answered before it was cancelled")
	}
	c.send([]byte(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":41,"reason":"test"}}` + "\n"))
	res := c.wait("41")
	if r, _ := res["result"].(map[string]any); r == nil || r["isError"] != true {
		t.Errorf("cancelled call's response = %v", res)
	}
	f.mu.Lock()
	n := f.slowCancelled
	f.mu.Unlock()
	if n != 1 {
		t.Errorf("slow cancelled %d times, want 1", n)
	}
}

// notifications/cancelled names a lean call however go-sdk would read its
// id: 41.0 is 41, "\u0061" is "a".
func TestLeanCallCancelledByAnySpellingOfItsID(t *testing.T) {
	for id, requestID := range map[string]string{`41`: `41.0`, `"a"`: `"\u0061"`, `42`: `4.2e1`} {
		f := newFakeSession()
		f.slowStarted = make(chan struct{}, 1)
		s := New(f, Options{})
		c := startRaw(t, s)
		c.initialize()
		c.send([]byte(`{"jsonrpc":"2.0","id":` + id + `,"method":"tools/call","params":{"name":"slow","arguments":{}}}` + "\n"))
		select {
		case <-f.slowStarted:
		case <-time.After(10 * time.Second):
			t.Fatal("slow did not start")
		}
		c.send([]byte(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":` + requestID + `}}` + "\n"))
		deadline := time.Now().Add(3 * time.Second)
		for !c.has(id) && time.Now().Before(deadline) {
			time.Sleep(5 * time.Millisecond)
		}
		if !c.has(id) {
			t.Errorf("call %s not cancelled by requestId %s", id, requestID)
		}
		s.Close()
	}
}
