package mcpconn

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// decodeResult reads every result as go-sdk's CallToolResult and toResult do.
func FuzzDecodeResult(f *testing.F) {
	for _, s := range []string{
		`{"content":[{"type":"text","text":"Echo: hi"}]}`,
		`{"content":[{"type":"text","text":"a\nb"}],"isError":true,"_meta":{"k":[1,"x"]}}`,
		`{"content":[],"structuredContent":{"b":1,"a":[1.50,2e3]}}`,
		`{"content":null,"isError":null,"_meta":null,"structuredContent":null}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		if !json.Valid(b) {
			return
		}
		var res mcp.CallToolResult
		wantErr := json.Unmarshal(b, &res)
		got, gotErr := decodeResult(b)
		if (wantErr == nil) != (gotErr == nil) {
			t.Fatalf("%q: go-sdk error %v, ours %v", b, wantErr, gotErr)
		}
		if wantErr != nil {
			return
		}
		want := toResult(&res)
		wj, _ := json.Marshal(want)
		gj, _ := json.Marshal(got)
		if string(wj) != string(gj) || !reflect.DeepEqual(want.Meta, got.Meta) || string(want.Structured) != string(got.Structured) || want.IsError != got.IsError {
			t.Fatalf("%q:\ngo-sdk %s\nours   %s", b, wj, gj)
		}
	})
}
