package mcpconn

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"reflect"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolgen-dev/toolgen/internal/jsonrpcline"
)

// decodeResult reads every result as go-sdk's CallToolResult does, whether
// on its own fast path or through go-sdk.
func TestDecodeResultMatchesGoSDK(t *testing.T) {
	for _, in := range []string{
		`{"content":[{"type":"text","text":"Echo: hi"}]}`,
		`{"content":[{"type":"text","text":"a\nb \"q\" \u00e9"},{"type":"text","text":""}],"isError":true}`,
		`{"content":[],"structuredContent":{"b":1,"a":[1.50,2e3]},"_meta":{"k":"v","n":3}}`,
		`{"content":null,"isError":null,"_meta":null,"structuredContent":null}`,
		`{}`,
		`{"content":[{"type":"text"}]}`,
		`{"content":[{"type":"text","text":"x","annotations":{"priority":0.5}}]}`,
		`{"content":[{"type":"text","text":"x","_meta":{"a":1}}]}`,
		`{"content":[{"type":"image","data":"aGk=","mimeType":"image/png"}]}`,
		`{"content":[{"type":"resource","resource":{"uri":"file:///a","text":"t"}}]}`,
		`{"content":[{"text":"x","type":"text"}],"extra":1}`,
		`{"Content":[{"type":"text","text":"x"}]}`,
		`{"content":[{"type":"text","text":"x"}],"content":[{"type":"text","text":"y"}]}`,
		`{"content":[{"type":"text","text":"x"}],"isError":false}`,
		`{"content":[],"isError":true,"isError":null}`,
	} {
		var res mcp.CallToolResult
		wantErr := json.Unmarshal([]byte(in), &res)
		got, gotErr := decodeResult([]byte(in))
		if (wantErr == nil) != (gotErr == nil) {
			t.Errorf("%s: go-sdk error %v, ours %v", in, wantErr, gotErr)
			continue
		}
		if wantErr != nil {
			continue
		}
		want := toResult(&res)
		wj, _ := json.Marshal(want)
		gj, _ := json.Marshal(got)
		if string(wj) != string(gj) || !reflect.DeepEqual(want.Meta, got.Meta) || string(want.Structured) != string(got.Structured) {
			t.Errorf("%s:\ngo-sdk %s\nours   %s", in, wj, gj)
		}
	}
}

func BenchmarkDecodeResult(b *testing.B) {
	in := []byte(`{"content":[{"type":"text","text":"Echo: hello from servedbench"}]}`)
	b.Run("lean", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			decodeResult(in)
		}
	})
	b.Run("go-sdk", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			var res mcp.CallToolResult
			json.Unmarshal(in, &res)
			toResult(&res)
		}
	})
}

// The lean calls' ids stay within 32 bits, also when they wrap.
func TestLeanIDsStayWithin32Bits(t *testing.T) {
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	conn := jsonrpcline.NewConn(newJSONLines(inR, 1<<20, func(string) {}), outW, jsonrpcline.Options{})
	defer conn.Close()
	defer inW.Close()
	ll := &leanLine{conn: conn}
	ll.ids.Store(1<<31 - 2)
	out := bufio.NewScanner(outR)
	for range 3 {
		done := make(chan error, 1)
		go func() {
			_, err := ll.call(context.Background(), "t", nil, nil)
			done <- err
		}()
		if !out.Scan() {
			t.Fatal("no request")
		}
		var req struct{ ID int64 }
		json.Unmarshal(out.Bytes(), &req)
		if req.ID > 1<<31-1 || req.ID <= leanFirstID {
			t.Errorf("id %d", req.ID)
		}
		fmt.Fprintf(inW, `{"jsonrpc":"2.0","id":%d,"result":{"content":[]}}`+"\n", req.ID)
		if err := <-done; err != nil {
			t.Fatal(err)
		}
	}
}
