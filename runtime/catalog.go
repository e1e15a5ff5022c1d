package runtime

import (
	"sync"

	"github.com/toolgen-dev/toolgen/runtime/decl"
)

// What the sessions of one agent share. A session of a 10,000-tool agent
// used to resolve the agent, build an entry per tool (schemas normalized,
// URL templates compiled) and a map of them: megabytes per client. All of
// that depends only on the pool snapshot, the agent, its spawn depth and
// the workdir, so it is built once per snapshot and shared read-only; a
// session keeps only its own state (loaded tools, memory, budget,
// connections, the runtime tools that close over it).

// agentViews holds a snapshot's shared resolutions and tool tables; a
// new snapshot starts empty, and the old one's go with their last session.
type agentViews struct {
	res    sync.Map // resKey → *resolution
	tables sync.Map // tableKey → *toolTable
}

type resKey struct {
	agent        string
	depth, limit int
}

type tableKey struct {
	res     *resolution
	workdir string
}

// toolTable is the pool tools an agent offers outside a step, all of its
// resolution's allowed tools: the surface of every session of an agent
// without discovery, whose servers are up.
type toolTable struct {
	byName map[string]*entry
	list   []ToolInfo // sorted by name
}

// resolution returns agent a's resolution over snap at a spawn depth,
// resolving it on first use. It is read-only once made.
func (p *Pool) resolution(snap *poolSnapshot, a *decl.Agent, depth, limit int) *resolution {
	k := resKey{a.Name, depth, limit}
	if r, ok := snap.agents.res.Load(k); ok {
		return r.(*resolution)
	}
	r, _ := snap.agents.res.LoadOrStore(k, p.resolveAgent(snap, a, depth, limit, nil))
	return r.(*resolution)
}

// table returns the tool table of res over snap, building it on first use.
func (p *Pool) table(snap *poolSnapshot, res *resolution, workdir string) *toolTable {
	k := tableKey{res, workdir}
	if t, ok := snap.agents.tables.Load(k); ok {
		return t.(*toolTable)
	}
	names := sortedKeys(res.allowed)
	t := &toolTable{byName: make(map[string]*entry, len(names)), list: make([]ToolInfo, 0, len(names))}
	for _, n := range names {
		pt := snap.byName[n]
		if pt == nil {
			continue // gone from its server's list
		}
		e := p.entry(pt, workdir)
		t.byName[n] = e
		t.list = append(t.list, e.info)
	}
	got, _ := snap.agents.tables.LoadOrStore(k, t)
	return got.(*toolTable)
}

// dropEntries forgets the shared entries of tools no longer in snap; p.mu
// is held. Sessions still holding one keep it.
func (p *Pool) dropEntries(snap *poolSnapshot) {
	p.entries.Range(func(k, _ any) bool {
		pt := k.(entryKey).pt
		if snap.byName[pt.Name] != pt {
			p.entries.Delete(k)
		}
		return true
	})
	p.rest.Range(func(k, _ any) bool {
		d := k.(restKey).d
		if pt := snap.byName[d.Name]; pt == nil || pt.Decl != d {
			p.rest.Delete(k)
		}
		return true
	})
}
