package serve

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// StatelessRevision is the first MCP revision without the initialize
// handshake and sessions (SEP-2575, SEP-2567): every request carries its
// protocol version, client info and capabilities in _meta.
const StatelessRevision = "2026-07-28"

// byRevision sends a request of the stateless revision to stateless and
// every other one (initialize, the requests of a session, its SSE stream
// and DELETE) to stateful. go-sdk's streamable handler serves 2026-07-28
// only when stateless, and the older revisions need sessions (a server's
// requests to the client, list_changed on the GET stream), so one endpoint
// holds both.
func byRevision(stateful, stateless http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if statelessRequest(r) {
			stateless.ServeHTTP(w, r)
			return
		}
		stateful.ServeHTTP(w, r)
	})
}

// statelessRequest reports whether r is a request of the stateless
// revision: a POST without a session id whose Mcp-Protocol-Version header,
// or without one the protocol version in its body's _meta, is 2026-07-28
// or later. The body stays readable.
func statelessRequest(r *http.Request) bool {
	if r.Method != http.MethodPost || r.Header.Get("Mcp-Session-Id") != "" {
		return false
	}
	if v := r.Header.Get("Mcp-Protocol-Version"); v != "" {
		return v >= StatelessRevision
	}
	body, ok := peekBody(r)
	if !ok || !bytes.Contains(body, []byte(mcp.MetaKeyProtocolVersion)) {
		return false
	}
	var m struct {
		Params struct {
			Meta map[string]any `json:"_meta"`
		} `json:"params"`
	}
	if json.Unmarshal(body, &m) != nil {
		return false
	}
	v, _ := m.Params.Meta[mcp.MetaKeyProtocolVersion].(string)
	return v >= StatelessRevision
}

// maxPeek bounds how much of a request body is read to route it.
const maxPeek = 1 << 20

// peekBody reads up to maxPeek bytes of r's body and puts them back in
// front of the rest; ok is false when the body is longer or unreadable.
func peekBody(r *http.Request) ([]byte, bool) {
	if r.Body == nil {
		return nil, false
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, maxPeek+1))
	r.Body = struct {
		io.Reader
		io.Closer
	}{io.MultiReader(bytes.NewReader(body), r.Body), r.Body}
	return body, err == nil && len(body) <= maxPeek
}
