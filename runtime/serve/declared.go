package serve

import "github.com/modelcontextprotocol/go-sdk/mcp"

// declared is what of a host's capabilities the upstream connections
// follow (what a server may ask through them), as bits that add up when
// several stateless hosts share a server.
type declared uint8

const (
	declaredSampling declared = 1 << iota
	declaredElicitation
	declaredForm // elicitation in form mode
	declaredURL  // elicitation in URL mode
)

// declaredBy is what c declares of it.
func declaredBy(c *mcp.ClientCapabilities) declared {
	if c == nil {
		return 0
	}
	var d declared
	if c.Sampling != nil {
		d |= declaredSampling
	}
	if e := c.Elicitation; e != nil {
		d |= declaredElicitation
		if e.Form != nil {
			d |= declaredForm
		}
		if e.URL != nil {
			d |= declaredURL
		}
	}
	return d
}

// capabilities is d as the capabilities the connections are told.
func (d declared) capabilities() *mcp.ClientCapabilities {
	c := &mcp.ClientCapabilities{}
	if d&declaredSampling != 0 {
		c.Sampling = &mcp.SamplingCapabilities{}
	}
	if d&declaredElicitation != 0 {
		c.Elicitation = &mcp.ElicitationCapabilities{}
		if d&declaredForm != 0 {
			c.Elicitation.Form = &mcp.FormElicitationCapabilities{}
		}
		if d&declaredURL != 0 {
			c.Elicitation.URL = &mcp.URLElicitationCapabilities{}
		}
	}
	return c
}
