package mcpconn

import (
	"fmt"
	"net/http"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// WebSocketPackage links the WebSocket transport into an agent; the
// generated registry imports it when a server's transport is "ws".
const WebSocketPackage = "github.com/toolgen-dev/toolgen/runtime/websocket"

// dialWebSocket makes the client transport of a "ws" server; nil until
// WebSocketPackage registers it, so agents without such a server do not
// link a WebSocket library.
var dialWebSocket func(url string, header http.Header, client *http.Client, maxMessageBytes int64) mcp.Transport

// RegisterWebSocket sets the WebSocket client transport.
func RegisterWebSocket(dial func(url string, header http.Header, client *http.Client, maxMessageBytes int64) mcp.Transport) {
	dialWebSocket = dial
}

func webSocketNotLinked(server string) error {
	return fmt.Errorf("server %q uses transport \"ws\" and the WebSocket transport is not linked into this agent: regenerate its registry with this toolgen (it imports %s for such servers) or add import _ %q to the agent's main package",
		server, WebSocketPackage, WebSocketPackage)
}
