// Package wsmcp is MCP over WebSocket: a go-sdk Transport whose text
// messages each carry one JSON-RPC message. It lives apart from
// internal/mcpconn so that only agents with a WebSocket server link it
// (runtime/websocket registers it there).
package wsmcp

import (
	"context"
	"errors"
	"net/http"
	"sync"

	"github.com/coder/websocket"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Transport is a go-sdk Transport over one WebSocket connection:
// each text message carries one JSON-RPC message. The MCP spec has no
// WebSocket transport; this is the framing MCP WebSocket servers use in
// practice (subprotocol "mcp").
//
// A client sets URL (and optionally Header and HTTPClient) and Connect dials;
// a server sets Conn to a connection it accepted.
type Transport struct {
	URL             string
	Header          http.Header
	HTTPClient      *http.Client
	Conn            *websocket.Conn
	MaxMessageBytes int64 // default DefaultMaxMessageBytes
}

// Connect implements mcp.Transport.
func (t *Transport) Connect(ctx context.Context) (mcp.Connection, error) {
	c := t.Conn
	if c == nil {
		var err error
		c, _, err = websocket.Dial(ctx, t.URL, &websocket.DialOptions{
			HTTPClient:   t.HTTPClient,
			HTTPHeader:   t.Header,
			Subprotocols: []string{"mcp"},
		})
		if err != nil {
			return nil, err
		}
	}
	limit := t.MaxMessageBytes
	if limit <= 0 {
		limit = DefaultMaxMessageBytes
	}
	c.SetReadLimit(limit)
	return &wsConn{c: c}, nil
}

// DefaultMaxMessageBytes is the largest message read when the transport
// sets none: 64 MiB, as internal/mcpconn's other transports.
const DefaultMaxMessageBytes = 64 << 20

type wsConn struct {
	c         *websocket.Conn
	closeOnce sync.Once
	closeErr  error
}

func (w *wsConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	_, data, err := w.c.Read(ctx)
	if err != nil {
		if websocket.CloseStatus(err) == websocket.StatusNormalClosure {
			return nil, mcp.ErrConnectionClosed
		}
		return nil, err
	}
	return jsonrpc.DecodeMessage(data)
}

func (w *wsConn) Write(ctx context.Context, msg jsonrpc.Message) error {
	data, err := jsonrpc.EncodeMessage(msg)
	if err != nil {
		return err
	}
	return w.c.Write(ctx, websocket.MessageText, data)
}

func (w *wsConn) Close() error {
	w.closeOnce.Do(func() {
		err := w.c.Close(websocket.StatusNormalClosure, "")
		var ce websocket.CloseError
		if err != nil && !errors.As(err, &ce) {
			w.closeErr = err
		}
	})
	return w.closeErr
}

func (w *wsConn) SessionID() string { return "" }
