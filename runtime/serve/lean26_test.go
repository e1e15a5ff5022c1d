package serve

import (
	"encoding/json"
	"fmt"
	"reflect"
	"testing"
)

// A 2026-07-28 tools/call over stdio is answered on the lean path as
// go-sdk's path answers it: a complete result with resultType and
// serverInfo, an input-required round, a -32021 refusal.
func TestLeanStatelessCallMatchesGoSDK(t *testing.T) {
	s := New(askingSession{newFakeSession()}, Options{})
	defer s.Close()
	c := startRaw(t, s)
	metaWith := func(caps string) string {
		return `{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":` + caps +
			`,"io.modelcontextprotocol/clientInfo":{"name":"raw","version":"1"}}`
	}
	// The host's first request: go-sdk takes its declaration.
	c.send([]byte(`{"jsonrpc":"2.0","id":"first","method":"tools/list","params":{"_meta":` + metaWith(`{"elicitation":{"form":{}}}`) + `}}` + "\n"))
	c.wait(`"first"`)
	before := leanStatelessCalls.Load()
	for i, call := range []struct{ name, args, caps, id string }{
		{"echo", `{"text":"<a & b>"}`, `{"elicitation":{"form":{}}}`, `7`},
		{"fail", `{}`, `{}`, `"str-id"`},
		{"nope", `{}`, `{}`, `0`},
		{"greet", `{}`, `{"elicitation":{"form":{}}}`, `8`},
		{"needs_model", `{}`, `{}`, `9`},
	} {
		meta := metaWith(call.caps)
		lean := fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"method":"tools/call","params":{"name":%q,"arguments":%s,"_meta":%s}}`+"\n", call.id, call.name, call.args, meta)
		// an unknown member of params sends the same call to go-sdk
		viaSDK := fmt.Sprintf(`{"jsonrpc":"2.0","id":"sdk-%d","method":"tools/call","params":{"name":%q,"arguments":%s,"_meta":%s,"x-other":1}}`+"\n", i, call.name, call.args, meta)
		c.send([]byte(lean))
		got := c.wait(call.id)
		c.send([]byte(viaSDK))
		want := c.wait(fmt.Sprintf(`"sdk-%d"`, i))
		for _, m := range []map[string]any{got, want} {
			delete(m, "id")
			if r, ok := m["result"].(map[string]any); ok {
				delete(r, "requestState") // a new one each round
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
	if n := leanStatelessCalls.Load() - before; n != 5 {
		t.Errorf("%d calls took the lean path, want 5", n)
	}
}
