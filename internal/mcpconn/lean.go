package mcpconn

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"sync/atomic"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolgen-dev/toolgen/internal/jsonrpcline"
)

// leanLine sends tools/call on a stdio server's line connection itself,
// and gets the response straight from the reading goroutine
// (jsonrpcline.Conn.Call): what go-sdk's client does per call (a generic
// middleware chain, a decoder that allocates tens of KiB per message, a
// hop through its reading goroutine) was half of an agent's served path.
// Everything else on the connection (initialize, pings, lists,
// notifications, the server's own requests) stays go-sdk's. The request
// and its cancellation are the ones go-sdk writes; the result is decoded
// into the same Result.
type leanLine struct {
	conn *jsonrpcline.Conn
	ids  atomic.Int64
}

// leanFirstID starts the lean calls' ids far from go-sdk's, which count up
// from 1, and within 32 bits for servers that keep ids in an int32.
const leanFirstID = 1 << 30

// newLeanLine is the lean path of a connected stdio session, or nil when
// there is none: another transport, or a protocol version from 2026-07-28
// on, whose requests carry per-request _meta and whose results may ask for
// another round trip (go-sdk handles both).
func newLeanLine(l *link, cs *mcp.ClientSession) *leanLine {
	t, ok := l.transport.(*lineTransport)
	if !ok || t.conn == nil {
		return nil
	}
	if r := cs.InitializeResult(); r == nil || r.ProtocolVersion >= "2026-07-28" {
		return nil
	}
	ll := &leanLine{conn: t.conn}
	ll.ids.Store(leanFirstID)
	return ll
}

// call runs tools/call as go-sdk's ClientSession.CallTool would, and
// returns what it would: a transport or JSON-RPC error as "calling
// \"tools/call\": …", ctx.Err() when ctx ends (after telling the server).
func (ll *leanLine) call(ctx context.Context, name string, args json.RawMessage, meta mcp.Meta) (Result, error) {
	id, line, err := ll.request(name, args, meta)
	if err != nil {
		return Result{}, err
	}
	resp, err := ll.conn.Call(ctx, id, line)
	return ll.response(ctx, id, resp, err)
}

// request is the tools/call line go-sdk would write, with a lean id,
// made in one buffer of the size it needs (the name quoted as
// encoding/json quotes it, the arguments compacted into place).
func (ll *leanLine) request(name string, args json.RawMessage, meta mcp.Meta) (int64, []byte, error) {
	id := ll.ids.Add(1)
	for id > 1<<31-1 { // wrapped: start again, and use an id from there
		ll.ids.CompareAndSwap(id, leanFirstID)
		id = ll.ids.Add(1)
	}
	var m []byte
	if len(meta) > 0 {
		var err error
		if m, err = json.Marshal(meta); err != nil {
			return 0, nil, fmt.Errorf("calling %q: marshaling call parameters: %w", "tools/call", err)
		}
	}
	line := make([]byte, 0, 96+len(m)+len(name)+len(name)/4+len(args))
	line = append(line, `{"jsonrpc":"2.0","id":`...)
	line = strconv.AppendInt(line, id, 10)
	line = append(line, `,"method":"tools/call","params":{`...)
	if m != nil {
		line = append(line, `"_meta":`...)
		line = append(line, m...)
		line = append(line, ',')
	}
	line = append(line, `"name":`...)
	line = jsonrpcline.AppendString(line, name)
	line = append(line, `,"arguments":`...)
	if len(args) == 0 {
		line = append(line, `{}`...) // go-sdk sends no nil arguments either
	} else {
		// one line, whatever the caller's formatting; b stays on the stack
		b := bytes.NewBuffer(line)
		if err := json.Compact(b, args); err != nil {
			return 0, nil, fmt.Errorf("calling %q: marshaling call parameters: %w", "tools/call", err)
		}
		line = b.Bytes()
	}
	return id, append(line, "}}\n"...), nil
}

// response reads the response line to request id, or its failure (err).
func (ll *leanLine) response(ctx context.Context, id int64, line []byte, err error) (Result, error) {
	if err != nil {
		if ctx.Err() != nil {
			ll.cancel(id, ctx.Err())
			return Result{}, ctx.Err()
		}
		return Result{}, fmt.Errorf("calling %q: %w", "tools/call", err)
	}
	var result, rpcErr []byte
	jsonrpcline.Pick(line, responseMembers, &result, &rpcErr)
	if !jsonrpcline.IsNull(rpcErr) {
		var e jsonrpc.Error
		if err := json.Unmarshal(rpcErr, &e); err != nil {
			return Result{}, fmt.Errorf("calling %q: %w", "tools/call", err)
		}
		return Result{}, fmt.Errorf("calling %q: %w", "tools/call", &e)
	}
	r, err := decodeResult(result)
	if err != nil {
		return Result{}, fmt.Errorf("calling %q: %w", "tools/call", err)
	}
	return r, nil
}

// cancel tells the server the call with id is abandoned for why, off
// the caller's way, as go-sdk does.
func (ll *leanLine) cancel(id int64, why error) {
	reason, _ := json.Marshal(why.Error())
	line := make([]byte, 0, 120)
	line = append(line, `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"reason":`...)
	line = append(line, reason...)
	line = append(line, `,"requestId":`...)
	line = strconv.AppendInt(line, id, 10)
	line = append(line, "}}\n"...)
	go ll.conn.WriteLine(line) // a closed connection fails it
}

var responseMembers = []string{"result", "error"}
