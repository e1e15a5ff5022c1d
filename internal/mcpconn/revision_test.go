package mcpconn

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The client offers the newest revision and takes the newest the server
// speaks, over stdio and streamable HTTP: a go-sdk v1.8 server that speaks
// 2026-07-28 only (no initialize at all) and servers of each older
// revision. On 2026-07-28 every request carries the client's _meta
// (protocol version, client info, capabilities), and what the server asks
// during a call comes as input-required results that reach the call's
// host through the same forwarding as a server-to-client request, with
// the server's request state echoed back.
func TestNegotiatesNewestRevision(t *testing.T) {
	for _, transport := range []string{TransportStdio, TransportHTTP} {
		for _, revision := range []string{"2026-07-28", "2025-11-25", "2025-06-18", "2025-03-26"} {
			t.Run(transport+"/"+revision, func(t *testing.T) {
				m := NewManager(nil)
				defer m.Close()
				m.SetHostCapabilities(&mcp.ClientCapabilities{
					Sampling:    &mcp.SamplingCapabilities{},
					Elicitation: &mcp.ElicitationCapabilities{Form: &mcp.FormElicitationCapabilities{}},
				})
				rec := newRecorder()
				cfg := fixture(rec, "rounds", "-revisions", revision)
				if transport == TransportHTTP {
					cfg = Config{Name: "rounds", Transport: TransportHTTP, Logger: rec.logger(),
						URL: startListening(t, "rounds", "-transport", "http", "-revisions", revision)}
				}
				c := acquire(t, m, cfg)
				defer c.Release()
				if got := c.ProtocolVersion(); got != revision {
					t.Fatalf("negotiated %q, want %q", got, revision)
				}
				if got := toolNames(c.Tools()); strings.Join(got, ",") != "confirm,meta,summarize" {
					t.Fatalf("tools = %v", got)
				}

				h := &host{}
				ctx, cancel := context.WithTimeout(WithCaller(context.Background(), h), 30*time.Second)
				defer cancel()
				r, err := c.Call(ctx, "confirm", []byte(`{}`))
				if err != nil || r.IsError || r.Text() != `accept: {"ok":true}` {
					t.Fatalf("confirm = %q (isError=%v), %v", r.Text(), r.IsError, err)
				}
				r, err = c.Call(ctx, "summarize", []byte(`{}`))
				if err != nil || r.IsError || !strings.Contains(r.Text(), `"text":"fine"`) {
					t.Fatalf("summarize = %q (isError=%v), %v", r.Text(), r.IsError, err)
				}
				h.mu.Lock()
				asked := len(h.elicited) == 1 && len(h.sampled) == 1 &&
					strings.Contains(h.elicited[0].Message, `"rounds" asks: Proceed?`)
				h.mu.Unlock()
				if !asked {
					t.Errorf("the host was asked %d elicitations, %d samplings; want one each, naming the server", len(h.elicited), len(h.sampled))
				}

				r = call(t, c, "meta", `{}`)
				var meta map[string]json.RawMessage
				if err := json.Unmarshal([]byte(r.Text()), &meta); err != nil {
					t.Fatalf("meta %q: %v", r.Text(), err)
				}
				perRequest := meta[mcp.MetaKeyProtocolVersion] != nil
				if want := revision >= "2026-07-28"; perRequest != want {
					t.Errorf("per-request _meta on %s: %v, want %v (%s)", revision, perRequest, want, r.Text())
				}
				if perRequest {
					for _, k := range []string{mcp.MetaKeyClientInfo, mcp.MetaKeyClientCapabilities} {
						if meta[k] == nil {
							t.Errorf("_meta lacks %s: %s", k, r.Text())
						}
					}
				}
			})
		}
	}
}
