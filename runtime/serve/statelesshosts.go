package serve

import (
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// A host of the stateless revision never initializes, so serve.client,
// which names the host at initialize, never named it. It is named instead
// the first time its name, version and revision appear in a request's
// _meta: once per table of rounds (a Clients' servers share one), so that
// a log shows who drove the agent without a line per request.

// statelessHosts are the stateless hosts named in the log so far.
type statelessHosts struct {
	mu   sync.Mutex
	seen map[hostName]struct{}
}

type hostName struct{ name, version, protocol string }

// maxNamedHosts bounds the hosts remembered: hosts beyond it go unnamed
// rather than grow the set without end.
const maxNamedHosts = 1024

// first reports whether p names a host not named yet, and notes it.
func (h *statelessHosts) first(p *mcp.InitializeParams) bool {
	id := hostName{protocol: p.ProtocolVersion}
	if p.ClientInfo != nil {
		id.name, id.version = p.ClientInfo.Name, p.ClientInfo.Version
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if _, ok := h.seen[id]; ok || len(h.seen) >= maxNamedHosts {
		return false
	}
	if h.seen == nil {
		h.seen = map[hostName]struct{}{}
	}
	h.seen[id] = struct{}{}
	return true
}

// nameStatelessHost logs serve.client for the host that declared p, the
// first time it is seen.
func (s *Server) nameStatelessHost(p *mcp.InitializeParams) {
	if p != nil && s.rounds.hosts.first(p) {
		s.logClient(p)
	}
}
