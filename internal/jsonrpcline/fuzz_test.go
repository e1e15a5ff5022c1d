package jsonrpcline

import (
	"bytes"
	"encoding/json"
	"reflect"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// Members sees, for a valid JSON object, the members encoding/json sees:
// the same keys, the last value of a repeated key winning.
func FuzzMembers(f *testing.F) {
	for _, s := range []string{
		`{}`, ` { "a" : 1 , "b" : [1,{"c":"}"}] } `, `{"a":"x\"y","a":null}`, `{"\u0061":true,"a\\":{}}`,
		`{"id":1,"method":"tools/call","params":{"name":"x","arguments":{"a":[1,2]}}}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		if !json.Valid(b) || b[SkipSpace(b, 0)] != '{' {
			return
		}
		var want map[string]json.RawMessage
		if err := json.Unmarshal(b, &want); err != nil {
			return
		}
		got := map[string]json.RawMessage{}
		Members(b, func(k, v []byte) {
			if !json.Valid(k) || !json.Valid(v) {
				t.Fatalf("%q: member %q: %q", b, k, v)
			}
			var key string
			json.Unmarshal(k, &key) // as encoding/json reads it
			got[key] = v
		})
		if len(got) != len(want) {
			t.Fatalf("%q: %d members, encoding/json %d", b, len(got), len(want))
		}
		for k, v := range want {
			if !bytes.Equal(got[k], v) {
				t.Fatalf("%q: member %q: %q, encoding/json %q", b, k, got[k], v)
			}
		}
	})
}

// decodeMessage reads every line as go-sdk's jsonrpc.DecodeMessage does.
func FuzzDecodeMessage(f *testing.F) {
	for _, s := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"ping"}`,
		`{"jsonrpc":"2.0","id":"x","method":"tools/call","params":{"name":"echo"}}`,
		`{"jsonrpc":"2.0","id":7,"result":{"content":[]}}`,
		`{"jsonrpc":"2.0","id":"y","error":{"code":-32602,"message":"bad"}}`,
		`{"jsonrpc":"2.0","method":"notifications/progress","params":{"progress":1}}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		if !json.Valid(b) || b[SkipSpace(b, 0)] != '{' {
			return
		}
		want, wantErr := jsonrpc.DecodeMessage(b)
		got, gotErr := decodeMessage(b)
		if (wantErr == nil) != (gotErr == nil) {
			t.Fatalf("%s: go-sdk error %v, ours %v", b, wantErr, gotErr)
		}
		if wantErr == nil && !reflect.DeepEqual(normalizeFuzz(want), normalizeFuzz(got)) {
			t.Fatalf("%s:\ngo-sdk %#v\nours   %#v", b, want, got)
		}
	})
}

func normalizeFuzz(m jsonrpc.Message) jsonrpc.Message {
	compact := func(r json.RawMessage) json.RawMessage {
		if len(r) == 0 {
			return nil
		}
		var b bytes.Buffer
		json.Compact(&b, r)
		return b.Bytes()
	}
	switch m := m.(type) {
	case *jsonrpc.Request:
		c := *m
		c.Params = compact(c.Params)
		return &c
	case *jsonrpc.Response:
		c := *m
		c.Result = compact(c.Result)
		return &c
	}
	return m
}
