// Package websocket links the WebSocket transport for servers declared
// with transport = "ws". Importing it is enough; the generated registry
// does when the spec has such a server:
//
//	import _ "github.com/toolgen-dev/toolgen/runtime/websocket"
package websocket

import (
	"net/http"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolgen-dev/toolgen/internal/mcpconn"
	"github.com/toolgen-dev/toolgen/internal/wsmcp"
)

func init() {
	mcpconn.RegisterWebSocket(func(url string, header http.Header, client *http.Client, maxMessageBytes int64) mcp.Transport {
		return &wsmcp.Transport{URL: url, Header: header, HTTPClient: client, MaxMessageBytes: maxMessageBytes}
	})
}
