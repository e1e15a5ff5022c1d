package serve

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"maps"
	"sync/atomic"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The lean path for a stdio host of the stateless revision (2026-07-28):
// its tools/call carries the protocol version, the host's capabilities and
// info in _meta, and go-sdk checked that triple and took the declared
// capabilities on the host's first request. A later tools/call whose _meta
// go-sdk would accept the same way (the version exactly 2026-07-28, the
// capabilities an object, client info absent or an object, no log level)
// is answered here as go-sdk's path answers it: through the same
// input-required rounds (callInRounds), with resultType and the server's
// serverInfo in the result's _meta, or the same JSON-RPC error. Anything
// else stays go-sdk's, as for older hosts (lean.go).

// leanStatelessCalls counts the calls answered on this path (tests tell
// by it that the path was taken).
var leanStatelessCalls atomic.Int64

// leanSession reports whether ss is a session go-sdk started for a host
// of the stateless revision.
func leanSession(ss *mcp.ServerSession) bool {
	p := ss.InitializeParams()
	return p != nil && p.ProtocolVersion == StatelessRevision
}

// leanMeta reports whether this path reads a tools/call's _meta exactly
// as go-sdk would, for a host of the stateless revision.
func leanMeta(meta mcp.Meta) bool {
	if v, _ := meta[mcp.MetaKeyProtocolVersion].(string); v != StatelessRevision {
		return false
	}
	if _, ok := meta[mcp.MetaKeyLogLevel]; ok {
		return false // sets what the call may log: go-sdk's
	}
	if info, ok := meta[mcp.MetaKeyClientInfo]; ok {
		if _, obj := info.(map[string]any); !obj {
			return false // go-sdk refuses it
		}
	}
	caps, ok := meta[mcp.MetaKeyClientCapabilities].(map[string]any)
	if !ok {
		return false // go-sdk refuses it
	}
	// Only what go-sdk decodes without complaint.
	b, err := json.Marshal(caps)
	var c mcp.ClientCapabilities
	return err == nil && json.Unmarshal(b, &c) == nil
}

// metaCache keeps the last _meta object a host sent on this connection,
// decoded, and leanMeta's verdict on it. A host of the stateless revision
// sends the same revision, capabilities and client info with every
// request; decoding them again, and checking the capabilities by a second
// encode and decode, was a fifth of the agent's time per call. Each call
// gets a map of its own; the values inside (the capabilities object, the
// client info) are shared by the calls and only read.
type metaCache struct {
	raw  []byte
	meta mcp.Meta
	lean bool
}

// maxCachedMeta bounds the _meta kept: larger ones are decoded each time.
const maxCachedMeta = 4 << 10

// decode reads a _meta object as json.Unmarshal does (ok false where it
// fails), and whether this path reads it as go-sdk would (leanMeta).
func (c *metaCache) decode(v []byte) (meta mcp.Meta, lean, ok bool) {
	if len(v) == 0 || v[0] != '{' {
		return nil, false, false
	}
	if c.meta != nil && bytes.Equal(v, c.raw) {
		return maps.Clone(c.meta), c.lean, true
	}
	if json.Unmarshal(v, &meta) != nil {
		return nil, false, false
	}
	lean = leanMeta(meta)
	if len(v) <= maxCachedMeta {
		c.raw, c.meta, c.lean = append(c.raw[:0], v...), maps.Clone(meta), lean
	}
	return meta, lean, true
}

// stateless runs a 2026-07-28 tools/call and writes its response.
func (lc *leanCalls) stateless(ctx context.Context, key idKey, cancel context.CancelFunc, head []byte, req *mcp.CallToolRequest) {
	s := lc.s
	leanStatelessCalls.Add(1)
	s.perRequestHost(req)
	// An extension (tasks) takes the call first, as on go-sdk's path.
	res, taken, err := s.takeCall(ctx, req)
	if !taken {
		res, err = s.callInRounds(ctx, req, "", nil, func(ctx context.Context) (mcp.Result, error) {
			return s.handle(ctx, req)
		})
	}
	lc.mu.Lock()
	delete(lc.ours, key) // before the response: the host may reuse the id then
	lc.mu.Unlock()
	cancel()
	if err != nil {
		lc.respondError(head, err)
		return
	}
	// As go-sdk annotates a result of the stateless revision.
	m := res.GetMeta()
	if m == nil {
		m = map[string]any{}
	}
	if _, ok := m[mcp.MetaKeyServerInfo]; !ok {
		m[mcp.MetaKeyServerInfo] = s.impl
	}
	res.SetMeta(m)
	if line, ok := appendCompleted(head, res); ok {
		lc.out.Write(append(line, "}\n"...))
		return
	}
	b := bytes.NewBuffer(head)
	enc := json.NewEncoder(b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(res); err != nil {
		s.logger.Error("serve.encode", "error", err.Error())
		b.Truncate(len(head))
		b.WriteString(`{"resultType":"complete","content":[{"type":"text","text":"internal error: result not encodable"}],"isError":true}`)
	} else {
		b.Truncate(b.Len() - 1) // Encode's newline
	}
	b.WriteString("}\n")
	lc.out.Write(b.Bytes())
}

// respondError writes err as go-sdk writes a handler's error: a
// *jsonrpc.Error as it is, anything else as an internal error.
func (lc *leanCalls) respondError(head []byte, err error) {
	var rpc *jsonrpc.Error
	if !errors.As(err, &rpc) {
		rpc = &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: err.Error()}
	}
	// head ends in `"result":`: the same envelope with "error".
	h := bytes.TrimSuffix(head, []byte(`"result":`))
	b := bytes.NewBuffer(append([]byte(nil), h...))
	b.WriteString(`"error":`)
	enc := json.NewEncoder(b)
	enc.SetEscapeHTML(false)
	if e := enc.Encode(rpc); e != nil {
		b.Truncate(len(h) + len(`"error":`))
		b.WriteString(`{"code":-32603,"message":"internal error"}`)
	} else {
		b.Truncate(b.Len() - 1)
	}
	b.WriteString("}\n")
	lc.out.Write(b.Bytes())
}

// appendCompleted appends res as go-sdk's path writes a complete result
// for a host of the stateless revision (typedResult through encoding/json
// without HTML escaping), byte for byte, when it is a tools/call result
// of text blocks: appendTextResult's form with resultType first. That
// reflective encoding, done twice (go-sdk's MarshalJSON, then the
// encoder's compaction), was a quarter of the agent's time per call. ok
// is false, dst unchanged, for any other result.
func appendCompleted(dst []byte, res mcp.Result) (_ []byte, ok bool) {
	tr, ok := res.(typedResult)
	if !ok || tr.asks != nil || tr.resultType != "complete" {
		return dst, false
	}
	call, ok := tr.Result.(*mcp.CallToolResult)
	if !ok || call == nil {
		return dst, false
	}
	start := len(dst)
	out, ok := appendTextResult(dst, call)
	if !ok {
		return dst, false
	}
	// out[start] is the object's '{': resultType goes right after it.
	const member = `"resultType":"complete",`
	out = append(out, member...)
	copy(out[start+1+len(member):], out[start+1:len(out)-len(member)])
	copy(out[start+1:], member)
	return out, true
}
