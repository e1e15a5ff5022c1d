package serve

import (
	"sync"
	"sync/atomic"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// A host of the stateless revision never initializes, so serve.client,
// which names the host at initialize, never named it. It is named instead
// the first time its name, version and revision appear in a request's
// _meta: once per table of rounds (a Clients' servers share one), so that
// a log shows who drove the agent without a line per request.

// statelessHosts are the stateless hosts named in the log so far.
type statelessHosts struct {
	// last is the declaration looked at last. The lean paths hand the
	// same one (their cached _meta's, never changed) with every call of a
	// host, which then costs a pointer compare rather than the lock and a
	// lookup by three strings.
	last atomic.Pointer[mcp.InitializeParams]
	mu   sync.Mutex
	seen map[hostName]struct{}
}

type hostName struct{ name, version, protocol string }

// maxNamedHosts bounds the hosts remembered: hosts beyond it go unnamed
// rather than grow the set without end.
const maxNamedHosts = 1024

// first reports whether p names a host not named yet, and notes it.
func (h *statelessHosts) first(p *mcp.InitializeParams) bool {
	if h.last.Swap(p) == p {
		return false // looked at already: named then, or not to be
	}
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
