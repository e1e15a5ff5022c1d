package mcpconn

import (
	"bytes"
	"encoding/json"
	"strconv"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// requestByEncoder is how leanLine.request wrote a call before it
// appended into one buffer: the reference its output must equal.
func requestByEncoder(id int64, name string, args json.RawMessage, meta mcp.Meta) ([]byte, error) {
	var b bytes.Buffer
	b.WriteString(`{"jsonrpc":"2.0","id":`)
	b.WriteString(strconv.FormatInt(id, 10))
	b.WriteString(`,"method":"tools/call","params":{`)
	if len(meta) > 0 {
		m, err := json.Marshal(meta)
		if err != nil {
			return nil, err
		}
		b.WriteString(`"_meta":`)
		b.Write(m)
		b.WriteByte(',')
	}
	n, _ := json.Marshal(name)
	b.WriteString(`"name":`)
	b.Write(n)
	b.WriteString(`,"arguments":`)
	if len(args) == 0 {
		b.WriteString(`{}`)
	} else if err := json.Compact(&b, args); err != nil {
		return nil, err
	}
	b.WriteString("}}\n")
	return b.Bytes(), nil
}

// The request line is byte for byte the one the encoder-built request
// wrote, for any name and arguments, and refuses what it refused.
func FuzzLeanRequest(f *testing.F) {
	for _, s := range [][2]string{
		{"echo", `{"text":"hello"}`},
		{"", ``},
		{"a<b>&c\u2028\xff\"\\\n", "{ \"a\" : [1, 2,\t{\"b\":\"x y\\\" z\"}] }\n"},
		{"t", `{"a":1`},
		{"t", `not json`},
		{"é\u2029", ` {"<":"&"} `},
	} {
		f.Add(s[0], []byte(s[1]), false)
		f.Add(s[0], []byte(s[1]), true)
	}
	f.Fuzz(func(t *testing.T, name string, args []byte, withMeta bool) {
		var meta mcp.Meta
		if withMeta {
			meta = mcp.Meta{"traceparent": name, "n": 1}
		}
		ll := &leanLine{}
		ll.ids.Store(41)
		id, got, gotErr := ll.request(name, args, meta)
		want, wantErr := requestByEncoder(42, name, args, meta)
		if (gotErr == nil) != (wantErr == nil) {
			t.Fatalf("request(%q, %q) error %v, the encoder's %v", name, args, gotErr, wantErr)
		}
		if gotErr == nil && (id != 42 || !bytes.Equal(got, want)) {
			t.Fatalf("request(%q, %q) = %d %q\nthe encoder's  %q", name, args, id, got, want)
		}
	})
}

// A request line is one allocation: the line itself.
func TestLeanRequestAllocatesOnce(t *testing.T) {
	ll := &leanLine{}
	args := json.RawMessage(`{"text": "hello from the benchmark"}`)
	n := testing.AllocsPerRun(100, func() {
		if _, _, err := ll.request("echo", args, nil); err != nil {
			t.Fatal(err)
		}
	})
	if n != 1 {
		t.Errorf("a request allocates %.0f times, want 1", n)
	}
}
