package mcpconn

import (
	"net/http"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolgen-dev/toolgen/internal/wsmcp"
)

// The tests dial "ws" servers as an agent that links runtime/websocket
// does (that package imports this one, so it cannot be imported here).
func init() {
	RegisterWebSocket(func(url string, header http.Header, client *http.Client, maxMessageBytes int64) mcp.Transport {
		return &wsmcp.Transport{URL: url, Header: header, HTTPClient: client, MaxMessageBytes: maxMessageBytes}
	})
}

func TestWebSocketNotLinked(t *testing.T) {
	dial := dialWebSocket
	dialWebSocket = nil
	defer func() { dialWebSocket = dial }()
	_, err := newLink(&Config{Name: "sock", Transport: TransportWS, URL: "ws://127.0.0.1:1/mcp"}, nil, nil)
	if err == nil || !strings.Contains(err.Error(), WebSocketPackage) || !strings.Contains(err.Error(), `"sock"`) {
		t.Fatalf("a ws server without the transport linked: %v, want an error naming %s", err, WebSocketPackage)
	}
}
