package serve

import (
	"context"
	"encoding/json"
	"fmt"
	"sync/atomic"
	"testing"

	"github.com/toolgen-dev/toolgen/runtime"
)

// forwardCounter is a session that counts the calls it forwards.
type forwardCounter struct {
	*runtime.Session
	n atomic.Int64
}

func (c *forwardCounter) Forward(ctx context.Context, name string, args json.RawMessage, done func(runtime.Result)) *runtime.Forwarded {
	c.n.Add(1) // before: the answer may come before Forward returns
	f := c.Session.Forward(ctx, name, args, done)
	if f == nil {
		c.n.Add(-1) // not forwarded, and nothing answered
	}
	return f
}

// A host's plain call of a proxied tool takes the shortest path
// (Session.Forward); a call with more in its params, or of a tool that is
// not a server's, takes the usual one, and every one is answered.
func TestPlainProxiedCallsAreForwarded(t *testing.T) {
	sess := &forwardCounter{Session: openEcho(t, runtime.Options{})}
	s := New(sess, Options{})
	defer s.Close()
	c := startRaw(t, s)
	c.initialize()
	for i, tc := range []struct {
		line      string
		forwarded bool
	}{
		{callLine("1", "echo__echo", `{"text":"plain"}`), true},
		{`{"jsonrpc":"2.0","id":"two","method":"tools/call","params":{"arguments":{"text":"args first"},"name":"echo__echo"}}` + "\n", true},
		{`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"echo__echo"}}` + "\n", true}, // no arguments: refused by the schema
		{`{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"echo__echo","arguments":{"text":"meta"},"_meta":{"progressToken":7}}}` + "\n", false},
		{`{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"echo__echo","arguments":{"text":"other"},"x-other":1}}` + "\n", false},
		{callLine("6", "nope", `{}`), false},
	} {
		before := sess.n.Load()
		c.send([]byte(tc.line))
		var id map[string]any
		json.Unmarshal([]byte(tc.line), &id)
		tok, _ := json.Marshal(id["id"])
		res := c.wait(string(tok))
		if r, _ := res["result"].(map[string]any); r == nil {
			t.Errorf("call %d answered %v", i, res)
		}
		if got := sess.n.Load() - before; got != map[bool]int64{true: 1}[tc.forwarded] {
			t.Errorf("call %d (%s): forwarded %d times, want forwarded %v", i, tc.line, got, tc.forwarded)
		}
	}
	// an id in flight on this path is refused as go-sdk refuses it
	c.send([]byte(callLine("100", "echo__sleep", `{"ms":600000}`) + callLine("100", "echo__echo", `{"text":"again"}`)))
	if e, _ := c.wait("null")["error"].(map[string]any); e == nil || e["code"] != float64(-32600) {
		t.Errorf("a reused id was answered %v", c.wait("null"))
	}
	c.send([]byte(fmt.Sprintf(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":%d}}`+"\n", 100)))
	if r, _ := c.wait("100")["result"].(map[string]any); r == nil || r["isError"] != true {
		t.Errorf("the cancelled call answered %v", c.wait("100"))
	}
}

// A 2026-07-28 host's call of a proxied tool is forwarded too, in its
// round: answered as the revision answers, and ended by the host's cancel.
func TestStatelessCallsAreForwarded(t *testing.T) {
	sess := &forwardCounter{Session: openEcho(t, runtime.Options{})}
	s := New(sess, Options{})
	defer s.Close()
	c := startRaw(t, s)
	c.send(call26Line("1", "echo__echo", `{"text":"warm"}`, "")) // names the host
	c.wait("1")
	before := sess.n.Load()
	c.send(call26Line("2", "echo__echo", `{"text":"forwarded"}`, ""))
	if typ, text := resultOf26(t, c.wait("2")); typ != "complete" || text != "forwarded" {
		t.Errorf("forwarded call: %s %q", typ, text)
	}
	c.send(call26Line("3", "echo__sleep", `{"ms":600000}`, ""))
	c.send([]byte(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":3}}` + "\n"))
	if res := c.wait("3"); res["error"] == nil && res["result"] == nil {
		t.Errorf("the cancelled call answered %v", res)
	}
	if n := sess.n.Load() - before; n != 2 {
		t.Errorf("%d of 2 calls forwarded", n)
	}
}
