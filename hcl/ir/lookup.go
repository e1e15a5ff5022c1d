package ir

// index holds a Spec's lookups by name, built once from its slices (ent's
// Graph keeps its ordered nodes beside such maps).
type index struct {
	tools   map[string]*Tool
	goTools []*Tool
	servers map[string]*Server
	agents  map[string]*Agent
	locked  map[lockedKey]*LockedTool
}

type lockedKey struct{ server, tool string }

// lookup returns the index, building it on first use. Emitters run in
// parallel, so the build is guarded.
func (s *Spec) lookup() *index {
	s.indexOnce.Do(func() { s.index = newIndex(s) })
	return s.index
}

func newIndex(s *Spec) *index {
	x := &index{
		tools:   make(map[string]*Tool, len(s.Tools)),
		servers: make(map[string]*Server, len(s.Servers)),
		agents:  make(map[string]*Agent, len(s.Agents)),
		locked:  map[lockedKey]*LockedTool{},
	}
	for _, t := range s.Tools {
		x.tools[t.Name] = t
		if t.Kind == KindGo && t.Go != nil {
			x.goTools = append(x.goTools, t)
		}
	}
	for _, srv := range s.Servers {
		x.servers[srv.Name] = srv
		for _, lt := range srv.Locked {
			x.locked[lockedKey{srv.Name, lt.Name}] = lt
		}
	}
	for _, a := range s.Agents {
		x.agents[a.Name] = a
	}
	return x
}

// Tool returns the declared tool of that name, or nil.
func (s *Spec) Tool(name string) *Tool { return s.lookup().tools[name] }

// GoTools lists the declared Go function tools, in name order.
func (s *Spec) GoTools() []*Tool { return s.lookup().goTools }

// Server returns the server of that name, or nil.
func (s *Spec) Server(name string) *Server { return s.lookup().servers[name] }

// Agent returns the agent of that name, or nil.
func (s *Spec) Agent(name string) *Agent { return s.lookup().agents[name] }

// LockedTool returns what the lock file records for a server's tool (by
// the server's own name for it), or nil.
func (s *Spec) LockedTool(server, tool string) *LockedTool {
	return s.lookup().locked[lockedKey{server, tool}]
}
