package mcpconn

// ProtocolVersion is the MCP revision the connection negotiated: the
// newest both sides speak, from Config.ProtocolVersion down; "" while the
// server is down.
func (c *Conn) ProtocolVersion() string {
	l := c.s.live.Load()
	if l == nil || l.cs == nil || l.cs.InitializeResult() == nil {
		return ""
	}
	return l.cs.InitializeResult().ProtocolVersion
}
