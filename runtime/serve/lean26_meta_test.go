package serve

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// A host's repeated _meta is decoded once per connection and then costs
// nothing; the verdict on what go-sdk would refuse
// follows every change.
func TestMetaCacheDecodesLikeUnmarshal(t *testing.T) {
	const good = `{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"sampling":{}},"io.modelcontextprotocol/clientInfo":{"name":"h","version":"1"}}`
	var c metaCache
	for i, tc := range []struct {
		meta       string
		lean, ok   bool
		wantLength int
	}{
		{good, true, true, 3},
		{good, true, true, 3}, // from the cache
		{strings.Replace(good, `{"sampling":{}}`, `{"sampling":"yes"}`, 1), false, true, 3}, // go-sdk refuses those capabilities
		{strings.Replace(good, `{"sampling":{}}`, `{"sampling":"yes"}`, 1), false, true, 3},
		{good[:len(good)-1] + `,"io.modelcontextprotocol/logLevel":"debug"}`, false, true, 4},
		{good, true, true, 3},
		{strings.Replace(good, `"2026-07-28"`, `"2025-11-25"`, 1), false, true, 3},
		{strings.Replace(good, `{"name":"h","version":"1"}`, `"h"`, 1), false, true, 3},
		{`{}`, false, true, 0},
		{`{"progressToken":1}`, false, true, 1},
		{`[1]`, false, false, 0},
	} {
		meta, lean, ok := c.decode([]byte(tc.meta))
		if lean != tc.lean || ok != tc.ok || len(meta) != tc.wantLength {
			t.Errorf("%d: decode(%s) = %d members, lean %v, ok %v; want %d, %v, %v", i, tc.meta, len(meta), lean, ok, tc.wantLength, tc.lean, tc.ok)
		}
		if ok {
			var want mcp.Meta
			if err := jsonUnmarshalMeta(tc.meta, &want); err != nil || !reflect.DeepEqual(meta, want) {
				t.Errorf("%d: decode(%s) = %v, json.Unmarshal: %v", i, tc.meta, meta, want)
			}
		}
	}
	// The cached form is shared: no decode (~25 allocations), no copy.
	line := []byte(good)
	c.decode(line)
	if n := testing.AllocsPerRun(100, func() { c.decode(line) }); n != 0 {
		t.Errorf("a repeated _meta allocates %v times, want none", n)
	}
}

func jsonUnmarshalMeta(s string, m *mcp.Meta) error { return json.Unmarshal([]byte(s), m) }

// The cache reads any _meta as json.Unmarshal does, cold and warm, and
// what it says the host declared is what declaredIn reads from the map.
func FuzzMetaCache(f *testing.F) {
	const good = `{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"sampling":{}},"io.modelcontextprotocol/clientInfo":{"name":"h","version":"1"}}`
	f.Add([]byte(good))
	f.Add([]byte(`{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"sampling":"x"}}`))
	f.Add([]byte(`{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":{"name":1}}`))
	f.Add([]byte(`{}`))
	f.Fuzz(func(t *testing.T, v []byte) {
		var c metaCache
		var want mcp.Meta
		werr := json.Unmarshal(v, &want)
		for range 2 { // cold, then from the cache
			meta, lean, ok := c.decode(v)
			if ok != (werr == nil && len(v) > 0 && v[0] == '{') {
				t.Fatalf("decode(%q) ok %v, json.Unmarshal: %v", v, ok, werr)
			}
			if !ok {
				return
			}
			if !reflect.DeepEqual(meta, want) {
				t.Fatalf("decode(%q) = %v, json.Unmarshal %v", v, meta, want)
			}
			host, wantLean := declaredIn(want)
			if lean != wantLean {
				t.Fatalf("decode(%q): lean %v, declaredIn %v", v, lean, wantLean)
			}
			if got := c.declared(meta); !reflect.DeepEqual(got, host) {
				t.Fatalf("declared(%q) = %+v, declaredIn %+v", v, got, host)
			}
		}
	})
}
