// Package sessionagent is the status page's view of a running agent binary:
// statuspage.Agent over the runtime session it serves. Health comes from
// the session's live servers, each tool's reason from the code behind
// `toolgen explain`, switching from Session.Switch.
package sessionagent

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/toolgen-dev/toolgen/runtime"
	"github.com/toolgen-dev/toolgen/runtime/decl"
	"github.com/toolgen-dev/toolgen/runtime/internal/statuspage"
)

// Session is what the page needs of a runtime session; *runtime.Session
// has it.
type Session interface {
	Agent() string
	Tools() []runtime.ToolInfo
	Servers() []runtime.ServerStatus
	Find(query string, limit int) []runtime.FindHit
	Switch(ctx context.Context, agent string) error
	Outputs() []runtime.SpilledOutput
	ReadOutput(handle string, offset, limit int) (runtime.OutputPage, error)
}

var _ Session = (*runtime.Session)(nil)

// Agent implements statuspage.Agent.
type Agent struct {
	reg  *runtime.Registry
	main Session
	// followers are the other sessions serving the same binary (one per
	// HTTP client): a switch on the page switches them too, and their
	// spilled outputs are listed beside main's. Nil: main only.
	followers func() []Session

	mu      sync.Mutex // serializes switches
	reasons struct {
		agent  string
		why    map[string]string
		skills map[string]string
	}
}

var _ statuspage.Agent = (*Agent)(nil)

// New returns the page's view of main, the session the binary serves
// (stdio) or opened up front (HTTP); followers, when not nil, lists the
// per-client sessions of serve --http.
func New(reg *runtime.Registry, main Session, followers func() []Session) *Agent {
	return &Agent{reg: reg, main: main, followers: followers}
}

// Status is the current agent, the agents of the registry, the servers
// the agent context connected with their live health, and its tools with
// the reason `toolgen explain` gives for each.
func (a *Agent) Status() statuspage.Status {
	st := statuspage.Status{Agent: a.main.Agent()}
	for _, ag := range a.reg.Agents {
		st.Agents = append(st.Agents, statuspage.AgentInfo{Name: ag.Name, Description: ag.Description})
	}
	st.Servers = a.Servers()
	why, skillWhy := a.explain(st.Agent)
	if sk, ok := a.main.(interface {
		Skills(context.Context) []*decl.Skill
	}); ok {
		for _, s := range sk.Skills(context.Background()) {
			reason := skillWhy[s.Name]
			if reason == "" && s.Server != "" {
				// An upstream skill no lock file named: its server's policy.
				reason = fmt.Sprintf("server %s serves it as %s (listed at run time); server.%s: %s", s.Server, s.Original, s.Server, skillWhy["server."+s.Server])
			}
			st.Skills = append(st.Skills, statuspage.Skill{Name: s.Name, Description: s.Description, URI: s.URI(), Reason: reason})
		}
	}
	for _, ti := range a.main.Tools() {
		reason := why[ti.Name]
		if reason == "" && ti.Namespace != "" {
			// A tool the server listed at run time and no lock file named.
			reason = "listed by server " + ti.Namespace + " at run time"
		}
		st.Tools = append(st.Tools, statuspage.Tool{Name: ti.Name, Kind: string(ti.Kind), Namespace: ti.Namespace,
			Description: ti.Description, InputSchema: ti.InputSchema, Reason: reason})
	}
	return st
}

// Servers are the servers the agent context connected, with their live
// health: Status's, without the tools (a replica heartbeats them).
func (a *Agent) Servers() []statuspage.Server {
	transport := map[string]string{}
	for _, srv := range a.reg.Servers {
		transport[srv.Name] = srv.Transport
	}
	var out []statuspage.Server
	for _, ss := range a.main.Servers() {
		out = append(out, statuspage.Server{Name: ss.Name, Transport: transport[ss.Name],
			Health: string(ss.Health), Tools: ss.Tools, Error: ss.Error})
	}
	return out
}

// explain returns each tool's and skill's reasons for agent, computed
// once per agent: they depend on the registry alone.
func (a *Agent) explain(agent string) (tools, skills map[string]string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.reasons.agent == agent && a.reasons.why != nil {
		return a.reasons.why, a.reasons.skills
	}
	why, skillWhy := map[string]string{}, map[string]string{}
	if x, err := runtime.Explain(a.reg, runtime.ExplainOptions{Agent: agent}); err == nil {
		for _, t := range x.Tools {
			why[t.Name] = strings.Join(t.Reasons, "; ")
		}
		for _, s := range x.Skills {
			skillWhy[s.Name] = s.Reason
		}
	}
	a.reasons.agent, a.reasons.why, a.reasons.skills = agent, why, skillWhy
	return why, skillWhy
}

// Find ranks the current agent's tools as tool_find does.
func (a *Agent) Find(query string, limit int) []statuspage.Hit {
	var out []statuspage.Hit
	for _, h := range a.main.Find(query, limit) {
		out = append(out, statuspage.Hit{Name: h.Name, Description: h.Description, Score: h.Score, Active: h.Active})
	}
	return out
}

// Switch makes agent current in main and in every follower, all at once:
// each waits up to 5 s for its in-flight calls, then forces its teardown.
// Each session tells its MCP host (tools/list_changed) as it switches.
func (a *Agent) Switch(ctx context.Context, agent string) error {
	if err := a.main.Switch(ctx, agent); err != nil {
		return err
	}
	if a.followers == nil {
		return nil
	}
	fs := a.followers()
	errs := make([]error, len(fs))
	var wg sync.WaitGroup
	for i, f := range fs {
		if f.Agent() == agent || f.Agent() == "" {
			continue
		}
		wg.Go(func() { errs[i] = f.Switch(ctx, agent) })
	}
	wg.Wait()
	return errors.Join(errs...)
}

// sessions is main then the followers.
func (a *Agent) sessions() []Session {
	out := []Session{a.main}
	if a.followers != nil {
		out = append(out, a.followers()...)
	}
	return out
}

// Outputs lists the spilled outputs of every session's current agent
// context, main's first.
func (a *Agent) Outputs() []statuspage.Output {
	var out []statuspage.Output
	for _, s := range a.sessions() {
		out = append(out, s.Outputs()...)
	}
	return out
}

// ReadOutput pages the spilled output of whichever session holds handle.
func (a *Agent) ReadOutput(handle string, offset, limit int) (statuspage.Page, error) {
	for _, s := range a.sessions() {
		if !slices.ContainsFunc(s.Outputs(), func(o runtime.SpilledOutput) bool { return o.Handle == handle }) {
			continue
		}
		return s.ReadOutput(handle, offset, limit)
	}
	return statuspage.Page{}, errors.New("no spilled output " + handle)
}
