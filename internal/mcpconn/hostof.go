package mcpconn

// A server's sampling or elicitation request over stdio carries no link
// to the call that caused it, so it goes to the host of the latest call
// in flight. While calls of two different hosts overlap on one
// connection, that may be the wrong host: one user would read, and
// answer, what the server asked about another's call. Then the request is
// refused (sampling fails, elicitation is declined) rather than guessed.

// HostOf is a Caller that knows which host it belongs to; callers of the
// same host answer Host with the same comparable value, nil when unknown.
type HostOf interface {
	Host() any
}

// severalHosts reports whether the calls in flight belong to more than
// one host, as far as their callers tell; cs.mu is held.
func (cs *calls) severalHosts() bool {
	if len(cs.order) < 2 {
		return false
	}
	var first any
	for _, id := range cs.order {
		h, ok := cs.byID[id].(HostOf)
		if !ok {
			return false // a caller that cannot tell: as before, the latest call's host
		}
		host := h.Host()
		if host == nil {
			return false
		}
		if first == nil {
			first = host
		} else if host != first {
			return true
		}
	}
	return false
}
