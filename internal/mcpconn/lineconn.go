package mcpconn

import (
	"context"
	"io"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolgen-dev/toolgen/internal/jsonrpcline"
)

// lineTransport is a stdio server's newline-delimited JSON-RPC, read a
// line at a time from jsonLines (which has checked each is one JSON
// value) through jsonrpcline.
type lineTransport struct {
	lines *jsonLines
	w     io.WriteCloser
	conn  *jsonrpcline.Conn // once connected: tools/call goes over it directly (leanCall)
}

func (t *lineTransport) Connect(context.Context) (mcp.Connection, error) {
	t.conn = jsonrpcline.NewConn(t.lines, t.w, jsonrpcline.Options{})
	return t.conn, nil
}
