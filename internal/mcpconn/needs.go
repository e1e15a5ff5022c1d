package mcpconn

import (
	"math/bits"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

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

// NeedsDeclared is what a client that declared caps can be listed (and so
// use).
func NeedsDeclared(caps *mcp.ClientCapabilities) Needs {
	if caps == nil {
		return 0
	}
	return declaration{sampling: caps.Sampling != nil, elicitation: caps.Elicitation != nil}.needs()
}

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

// listings are the lists a server gave last under each declaration it
// connected with (at most four), kept across reconnects; guarded by
// server.mu. They are the published lists themselves, so a server that
// only ever had one declaration costs nothing more.
type listings struct {
	by map[Needs][]Tool
	// added are tools the server added to a session's list (list_changed):
	// there for everyone, not for a capability. Only those still listed.
	added map[string]bool
}

// learn records tools (a fresh list: their Needs are set in place) as
// listed under d and returns them. On a relist (list_changed), before is
// the list the same session gave last: a tool it lacked was added by the
// server, not for a capability, so it needs nothing; an unchanged list is
// before itself, kept once.
func (ls *listings) learn(d Needs, tools, before []Tool, relist bool) []Tool {
	out := tools
	if ls.by == nil {
		ls.by = map[Needs][]Tool{}
	}
	ls.by[d] = out
	if relist {
		had := nameSet(before)
		for _, t := range tools {
			if !had[t.Name] {
				if ls.added == nil {
					ls.added = map[string]bool{}
				}
				ls.added[t.Name] = true
			}
		}
	}
	if len(ls.added) > 0 {
		listed := nameSet(tools)
		for n := range ls.added {
			if !listed[n] {
				delete(ls.added, n)
			}
		}
	}
	var sets map[Needs]map[string]bool
	if len(ls.by) > 1 { // else nothing to compare with: anyone's
		sets = make(map[Needs]map[string]bool, len(ls.by))
		for d, l := range ls.by {
			sets[d] = nameSet(l)
		}
	}
	for i := range out {
		out[i].Needs = 0
		if sets != nil && !ls.added[out[i].Name] {
			out[i].Needs = needsOf(out[i].Name, sets)
		}
	}
	if relist && sameTools(before, out) {
		ls.by[d] = before
	}
	return out
}

func nameSet(tools []Tool) map[string]bool {
	out := make(map[string]bool, len(tools))
	for _, t := range tools {
		out[t.Name] = true
	}
	return out
}

// needsOf is the least a tool needs that agrees with every list: it needs
// no more than each declaration it was listed under, and something beyond
// each one it was missing from. When two answers fit as well (listed with
// sampling and elicitation, missing from the bare list), it needs all of
// them, until a list tells them apart.
func needsOf(name string, ls map[Needs]map[string]bool) Needs {
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
