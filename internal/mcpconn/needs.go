package mcpconn

import "math/bits"

// A server may list some tools only to clients that declare a capability
// (server-everything lists trigger-sampling-request only with sampling).
// The connection declares what its hosts declare together, so a host that
// declared less would be shown tools it cannot use. What each tool needs
// is learnt by comparing the lists the server gave under different
// declarations: serve's connections start before any host declares, so
// the first list is normally the bare one. No second connection is opened
// to probe: without a list under a smaller declaration, every tool is
// taken as usable by any host (as before this was learnt).

// Needs are the host capabilities a server lists a tool only to.
type Needs uint8

const (
	NeedsSampling Needs = 1 << iota
	NeedsElicitation
)

// needs is what a session that declared d can be listed.
func (d declaration) needs() Needs {
	var n Needs
	if d.sampling {
		n |= NeedsSampling
	}
	if d.elicitation {
		n |= NeedsElicitation
	}
	return n
}

// listings are the names a server listed last under each declaration it
// connected with (at most four), kept across reconnects; guarded by
// server.mu.
type listings map[Needs]map[string]bool

// learn records tools as listed under d and returns them with their Needs.
// On a relist (list_changed), before is the list the same session gave
// last: a tool it lacked was added by the server, not for a capability,
// so it counts as listed under every declaration.
func (ls listings) learn(d Needs, tools, before []Tool, relist bool) []Tool {
	names := make(map[string]bool, len(tools))
	for _, t := range tools {
		names[t.Name] = true
	}
	if relist {
		had := make(map[string]bool, len(before))
		for _, t := range before {
			had[t.Name] = true
		}
		for n := range names {
			if !had[n] {
				for _, other := range ls {
					other[n] = true
				}
			}
		}
	}
	ls[d] = names
	out := make([]Tool, len(tools))
	for i, t := range tools {
		t.Needs = ls.needsOf(t.Name)
		out[i] = t
	}
	return out
}

// needsOf is the least a tool needs that agrees with every list: it needs
// no more than each declaration it was listed under, and something beyond
// each one it was missing from. When two answers fit as well (listed with
// sampling and elicitation, missing from the bare list), it needs all of
// them, until a list tells them apart.
func (ls listings) needsOf(name string) Needs {
	upper := NeedsSampling | NeedsElicitation
	var missing []Needs
	for d, names := range ls {
		if names[name] {
			upper &= d
		} else {
			missing = append(missing, d)
		}
	}
	if len(missing) == 0 {
		return 0
	}
	best, found := upper, 0
	for size := 0; size <= bits.OnesCount8(uint8(upper)) && found == 0; size++ {
		for n := Needs(0); n <= upper; n++ {
			if n&^upper != 0 || bits.OnesCount8(uint8(n)) != size || !beyondAll(n, missing) {
				continue
			}
			best, found = n, found+1
		}
	}
	if found != 1 {
		return upper
	}
	return best
}

// beyondAll reports whether n needs something outside each of ds.
func beyondAll(n Needs, ds []Needs) bool {
	for _, d := range ds {
		if n&^d == 0 {
			return false
		}
	}
	return true
}
