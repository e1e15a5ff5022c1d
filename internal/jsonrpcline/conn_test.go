package jsonrpcline

import (
	"reflect"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// decodeMessage reads what go-sdk's jsonrpc.DecodeMessage reads.
func TestDecodeMessageMatchesGoSDK(t *testing.T) {
	for _, in := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"ping"}`,
		`{"jsonrpc":"2.0","id":"x","method":"tools/call","params":{"name":"echo","arguments":{"a":[1,2]}}}`,
		`{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"3","progress":1}}`,
		`{"jsonrpc":"2.0","id":7,"result":{"content":[{"type":"text","text":"hi"}]}}`,
		`{"jsonrpc":"2.0","id":"y","error":{"code":-32602,"message":"bad","data":{"k":1}}}`,
		`{"jsonrpc":"2.0","id":8,"method":""}`,
		`{"jsonrpc":"2.0","result":{}}`,
		`{"jsonrpc":"1.0","id":1,"method":"ping"}`,
		`{"id":1,"method":"ping"}`,
		`{"jsonrpc":"2.0","id":true,"method":"ping"}`,
		`{"jsonrpc":"2.0","id":1,"method":7}`,
		// go-sdk matches member names exactly, not as encoding/json does
		`{"jsonrpc":"2.0","id":1,"method":"ping","Jsonrpc":"1.0"}`,
		`{"jsonrpc":"2.0","id":1,"method":"tools/list","Method":"tools/call","ID":2,"Params":{}}`,
		`{"JSONRPC":"2.0","id":1,"method":"ping"}`,
		`{"jsonrpc":"2.0","ID":1,"Result":{}}`,
		`{"jsonrpc":"2.0","id":"y","error":{"Code":1,"code":2,"message":"m","Message":"n"}}`,
		`{"jsonrpc":"2.0","id":1,"method":null,"params":null}`,
		`{"jsonrpc":"2.0","id":1e400,"method":"ping"}`,
		`[1]`,
	} {
		want, wantErr := jsonrpc.DecodeMessage([]byte(in))
		got, gotErr := decodeMessage([]byte(in))
		if (wantErr == nil) != (gotErr == nil) {
			t.Errorf("%s: go-sdk error %v, ours %v", in, wantErr, gotErr)
			continue
		}
		if wantErr == nil && !reflect.DeepEqual(normalize(want), normalize(got)) {
			t.Errorf("%s:\ngo-sdk %#v\nours   %#v", in, want, got)
		}
	}
}

// normalize compacts raw JSON fields, whose bytes may differ only in
// whitespace.
func normalize(m jsonrpc.Message) jsonrpc.Message {
	switch m := m.(type) {
	case *jsonrpc.Request:
		c := *m
		if len(c.Params) == 0 {
			c.Params = nil
		}
		return &c
	case *jsonrpc.Response:
		c := *m
		if len(c.Result) == 0 {
			c.Result = nil
		}
		return &c
	}
	return m
}
