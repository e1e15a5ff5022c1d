package runtime

import (
	"context"
	"fmt"
)

// defaultConnector is the process-wide MCP connector used when
// Options.Connector is nil. Replaced by the runtime/mcpconn adapter.
func defaultConnector() Connector { return unwiredConnector{} }

type unwiredConnector struct{}

func (unwiredConnector) Acquire(ctx context.Context, srv *Server, getenv func(string) (string, bool)) (Upstream, error) {
	return nil, fmt.Errorf("server %q: MCP client not wired", srv.Name)
}
