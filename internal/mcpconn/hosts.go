package mcpconn

import (
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// hosts are the hosts serving the agent at once (the HTTP clients of one
// process share its connections), each with what it declared. A shared
// connection declares what any of them can answer: one host without
// sampling must not take sampling away from another that has it. Which
// host a request goes to is the call's own (its Caller), and a host asked
// for what it did not declare refuses it.
type hosts struct {
	mu   sync.Mutex
	caps map[any]*mcp.ClientCapabilities
}

// DeclareHost records what one host (any comparable key: its session)
// declared, replacing its earlier declaration, and rechecks the
// connections as SetHostCapabilities does.
func (m *Manager) DeclareHost(host any, caps *mcp.ClientCapabilities) <-chan bool {
	m.hosts.mu.Lock()
	if m.hosts.caps == nil {
		m.hosts.caps = map[any]*mcp.ClientCapabilities{}
	}
	m.hosts.caps[host] = caps
	all := m.hosts.union()
	m.hosts.mu.Unlock()
	return m.recheck(all)
}

// ForgetHost drops a host that is gone (its session closed); what the
// remaining hosts declare is what connections declare from now on.
// Connections are not replaced for it: declaring more than the hosts left
// can answer costs nothing (a request nobody can answer is refused).
func (m *Manager) ForgetHost(host any) {
	m.hosts.mu.Lock()
	defer m.hosts.mu.Unlock()
	if _, ok := m.hosts.caps[host]; !ok {
		return
	}
	delete(m.hosts.caps, host)
	m.hostCaps.Store(m.hosts.union())
}

// union is what the hosts declare together: nil when none declared
// anything (no host), else sampling and elicitation (form, URL) if any
// host has them.
func (h *hosts) union() *mcp.ClientCapabilities {
	var out *mcp.ClientCapabilities
	for _, c := range h.caps {
		if c == nil {
			continue
		}
		if out == nil {
			out = &mcp.ClientCapabilities{}
		}
		if c.Sampling != nil && out.Sampling == nil {
			out.Sampling = &mcp.SamplingCapabilities{}
		}
		if e := c.Elicitation; e != nil {
			if out.Elicitation == nil {
				out.Elicitation = &mcp.ElicitationCapabilities{}
			}
			if e.Form != nil {
				out.Elicitation.Form = &mcp.FormElicitationCapabilities{}
			}
			if e.URL != nil {
				out.Elicitation.URL = &mcp.URLElicitationCapabilities{}
			}
		}
	}
	return out
}
