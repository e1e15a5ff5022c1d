package runtime

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/toolgen-dev/toolgen/internal/didyoumean"
	"github.com/toolgen-dev/toolgen/runtime/decl"
	"github.com/toolgen-dev/toolgen/runtime/internal/pipeline"
	"github.com/toolgen-dev/toolgen/runtime/internal/tools"
)

// Find ranks the tools the agent may load (or call) for a query, best
// first, marking the active ones. It is what tool_find returns.
func (s *Session) Find(query string, limit int) []FindHit {
	hits, _ := s.FindWithHint(query, limit)
	return hits
}

// FindWithHint is Find with the hint tool_find adds when no tool matched
// the query's words and the hits are a fallback (see finder.find).
func (s *Session) FindWithHint(query string, limit int) ([]FindHit, string) {
	st := s.st.Load()
	if st == nil {
		return nil, ""
	}
	return (*catalog)(st).Find(query, limit)
}

// catalog is the discovery tools' view of an agent context: the pool
// tools it may load, and the ones it loaded.
type catalog agentState

func (c *catalog) Find(query string, limit int) ([]FindHit, string) {
	st := (*agentState)(c)
	if limit <= 0 {
		limit = 10
	}
	snap := st.s.pool.snap.Load()
	loadableSet := st.surf.Load().loadable
	loadable := func(name string) bool { return loadableSet[name] && snap.byName[name] != nil }
	hits, hint := snap.finder.find(query, limit, loadable, func() []*PoolTool {
		var out []*PoolTool
		for _, t := range snap.tools {
			if loadableSet[t.Name] {
				out = append(out, t)
			}
		}
		return out
	})
	sf := st.surf.Load()
	out := make([]FindHit, len(hits))
	for i, h := range hits {
		_, active := sf.byName[h.Name]
		out[i] = FindHit{Name: h.Name, Description: snap.byName[h.Name].Description, Score: h.Score, Active: active}
	}
	return out, hint
}

// describable resolves a name (or alias) the agent may know about: a
// loadable pool tool or one of its callable tools.
func (st *agentState) describable(name string) (ToolInfo, *PoolTool, bool) {
	snap := st.s.pool.snap.Load()
	sf := st.surf.Load()
	if e := sf.byName[name]; e != nil {
		return e.info, snap.byName[e.info.Name], true
	}
	if t := st.res.aliases[name]; t != "" {
		name = t
	}
	if sf.loadable[name] {
		if pt := snap.byName[name]; pt != nil {
			return ToolInfo{Name: pt.Name, Description: pt.Description, InputSchema: pipeline.NormalizeSchema(pt.InputSchema), Kind: pt.Kind}, pt, true
		}
	}
	return ToolInfo{}, nil, false
}

func (st *agentState) notFound(name string) error {
	msg := fmt.Sprintf("tool %q not found", name)
	if to, ok := st.s.pool.snap.Load().renamed[name]; ok {
		msg += "; it was renamed to " + to
	} else if near := didyoumean.Nearest(name, st.knownNames(), 3); len(near) > 0 {
		msg += "; did you mean " + quoteList(near) + "?"
	}
	if !strings.HasSuffix(msg, "?") {
		msg += "."
	}
	return errors.New(msg + " Use " + decl.ToolFind + " to discover available tools.")
}

func (c *catalog) Describe(name string) (tools.Description, error) {
	st := (*agentState)(c)
	info, pt, ok := st.describable(name)
	if !ok {
		return tools.Description{}, st.notFound(name)
	}
	_, active := st.surf.Load().byName[info.Name]
	d := tools.Description{Name: info.Name, Description: info.Description, InputSchema: info.InputSchema, Active: active}
	if pt != nil {
		d.Category, d.Keywords = pt.Category, pt.Keywords
	}
	return d, nil
}

// Load activates tools, all or none, never outside the agent's policy.
func (c *catalog) Load(names []string) (tools.Loaded, error) {
	st := (*agentState)(c)
	snap := st.s.pool.snap.Load()
	loadable := st.surf.Load().loadable
	var canon []string
	for _, n := range names {
		name := n
		if t := st.res.aliases[n]; t != "" {
			name = t
		}
		switch {
		case loadable[name] && snap.byName[name] != nil:
			canon = append(canon, name)
		case snap.byName[name] != nil:
			return tools.Loaded{}, fmt.Errorf("tool %q not allowed for agent %q; nothing was loaded", n, st.agent.Name)
		default:
			return tools.Loaded{}, fmt.Errorf("%v Nothing was loaded.", st.notFound(n))
		}
	}
	var l tools.Loaded
	st.mu.Lock()
	for _, n := range canon {
		if st.loaded[n] {
			if !slices.Contains(l.AlreadyActive, n) {
				l.AlreadyActive = append(l.AlreadyActive, n)
			}
			continue
		}
		st.loaded[n] = true
		pt := snap.byName[n]
		l.Tools = append(l.Tools, tools.LoadedTool{Name: pt.Name, Description: pt.Description, InputSchema: pipeline.NormalizeSchema(pt.InputSchema)})
	}
	changed := len(l.Tools) > 0 && st.rebuildSurfaceLocked()
	l.ActiveCount = len(st.loaded)
	st.mu.Unlock()
	if changed {
		st.s.notify()
	}
	return l, nil
}

func (c *catalog) Active() []tools.ActiveTool {
	st := (*agentState)(c)
	snap := st.s.pool.snap.Load()
	st.mu.Lock()
	names := sortedKeys(st.loaded)
	st.mu.Unlock()
	var out []tools.ActiveTool
	for _, n := range names {
		if pt := snap.byName[n]; pt != nil {
			out = append(out, tools.ActiveTool{Name: n, Description: pt.Description})
		}
	}
	return out
}
