package runtime

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/toolgen-dev/toolgen/internal/didyoumean"
	"github.com/toolgen-dev/toolgen/runtime/decl"
	"github.com/toolgen-dev/toolgen/runtime/internal/pipeline"
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
	return st.find(query, limit)
}

func (st *agentState) find(query string, limit int) ([]FindHit, string) {
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

func toolFind(_ context.Context, st *agentState, _ *entry, args json.RawMessage) (string, error) {
	var a struct {
		Query string `json:"query"`
		Limit int    `json:"limit"`
	}
	if err := decode(args, &a); err != nil {
		return "", err
	}
	if a.Query == "" {
		return "", errors.New("query is empty")
	}
	hits, hint := st.find(a.Query, a.Limit)
	if hits == nil {
		hits = []FindHit{}
	}
	res := map[string]any{"query": a.Query, "results": hits, "count": len(hits)}
	if hint != "" {
		res["hint"] = hint
	}
	return marshal(res)
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

func toolDescribe(_ context.Context, st *agentState, _ *entry, args json.RawMessage) (string, error) {
	var a struct {
		Name string `json:"name"`
	}
	if err := decode(args, &a); err != nil {
		return "", err
	}
	info, pt, ok := st.describable(a.Name)
	if !ok {
		return "", st.notFound(a.Name)
	}
	_, active := st.surf.Load().byName[info.Name]
	d := map[string]any{"name": info.Name, "description": info.Description, "input_schema": info.InputSchema, "active": active}
	if pt != nil {
		if pt.Category != "" {
			d["category"] = pt.Category
		}
		if len(pt.Keywords) > 0 {
			d["keywords"] = pt.Keywords
		}
	}
	return marshal(d)
}

type loadedTool struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	InputSchema json.RawMessage `json:"input_schema"`
}

// toolLoad activates tools, all or none, never outside the agent's policy.
func toolLoad(_ context.Context, st *agentState, _ *entry, args json.RawMessage) (string, error) {
	var a struct {
		Names []string `json:"names"`
	}
	if err := decode(args, &a); err != nil {
		return "", err
	}
	if len(a.Names) == 0 {
		return "", errors.New("names is empty")
	}
	snap := st.s.pool.snap.Load()
	loadable := st.surf.Load().loadable
	var names []string
	for _, n := range a.Names {
		canon := n
		if t := st.res.aliases[n]; t != "" {
			canon = t
		}
		switch {
		case loadable[canon] && snap.byName[canon] != nil:
			names = append(names, canon)
		case snap.byName[canon] != nil:
			return "", fmt.Errorf("tool %q not allowed for agent %q; nothing was loaded", n, st.agent.Name)
		default:
			return "", fmt.Errorf("%v Nothing was loaded.", st.notFound(n))
		}
	}
	st.mu.Lock()
	var loaded []loadedTool
	already := []string{} // [] rather than null when nothing was active
	for _, n := range names {
		if st.loaded[n] {
			if !slices.Contains(already, n) {
				already = append(already, n)
			}
			continue
		}
		st.loaded[n] = true
		pt := snap.byName[n]
		loaded = append(loaded, loadedTool{pt.Name, pt.Description, pipeline.NormalizeSchema(pt.InputSchema)})
	}
	changed := len(loaded) > 0 && st.rebuildSurfaceLocked()
	count := len(st.loaded)
	st.mu.Unlock()
	if changed {
		st.s.notify()
	}
	if loaded == nil {
		loaded = []loadedTool{}
	}
	return marshal(map[string]any{
		"loaded": loaded, "already_active": already, "active_count": count,
		"note": "Loaded tools are callable by name, or through " + decl.ToolMCPCall + " with {tool, args}.",
	})
}

func toolActive(_ context.Context, st *agentState, _ *entry, _ json.RawMessage) (string, error) {
	snap := st.s.pool.snap.Load()
	st.mu.Lock()
	names := sortedKeys(st.loaded)
	st.mu.Unlock()
	type activeTool struct {
		Name        string `json:"name"`
		Description string `json:"description"`
	}
	out := []activeTool{}
	for _, n := range names {
		if pt := snap.byName[n]; pt != nil {
			out = append(out, activeTool{n, pt.Description})
		}
	}
	res := map[string]any{"tools": out, "count": len(out)}
	if len(out) == 0 {
		res["message"] = "No tools are active. Use " + decl.ToolFind + " and " + decl.ToolLoad + " to activate some."
	}
	return marshal(res)
}
