package serve

import (
	"bufio"
	"bytes"
	"context"
	"io"
	"strconv"
	"testing"
)

// What a stdio tools/call costs the agent for a host of each revision.
// The host is raw lines (no client library), so the figures are the
// agent's alone: a 2025-11-25 host initializes once and then sends plain
// calls; a 2026-07-28 host sends the revision, its capabilities and its
// client info in every call's _meta, as go-sdk's client does. Issue 22
// wants the second no dearer than the first.
func BenchmarkStdioCallByRevision(b *testing.B) {
	const caps = `{"elicitation":{"form":{}},"sampling":{}}`
	const info = `{"name":"bench","version":"1"}`
	for _, rev := range []string{"2025-11-25", StatelessRevision} {
		b.Run(rev, func(b *testing.B) {
			s := New(newFakeSession(), Options{})
			defer s.Close()
			cr, sw := io.Pipe()
			sr, cw := io.Pipe()
			done := make(chan error, 1)
			go func() { done <- s.ServeIO(context.Background(), sr, sw); sw.Close() }()
			out := bufio.NewReader(cr)
			roundTrip := func(line string) []byte {
				if _, err := io.WriteString(cw, line+"\n"); err != nil {
					b.Fatal(err)
				}
				resp, err := out.ReadBytes('\n')
				if err != nil {
					b.Fatal(err)
				}
				return resp
			}
			var meta string
			if rev == StatelessRevision {
				meta = `,"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":` + caps +
					`,"io.modelcontextprotocol/clientInfo":` + info + `}`
				roundTrip(`{"jsonrpc":"2.0","id":0,"method":"tools/list","params":{` + meta[1:] + `}`)
			} else {
				roundTrip(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":` + caps + `,"clientInfo":` + info + `}}`)
				io.WriteString(cw, `{"jsonrpc":"2.0","method":"notifications/initialized"}`+"\n")
			}
			want := []byte(`hello from the benchmark`)
			id := 0
			b.ReportAllocs()
			for b.Loop() {
				id++
				resp := roundTrip(`{"jsonrpc":"2.0","id":` + strconv.Itoa(id) + `,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hello from the benchmark"}` + meta + `}}`)
				if !bytes.Contains(resp, want) || bytes.Contains(resp, []byte(`"isError":true`)) {
					b.Fatalf("%s", resp)
				}
			}
			cw.Close()
			<-done
		})
	}
}
