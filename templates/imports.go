package templates

import (
	"fmt"
	"slices"

	"github.com/toolgen-dev/toolgen/hcl/ir"
	"github.com/toolgen-dev/toolgen/internal/model"
)

const (
	telemetryPkg  = "github.com/toolgen-dev/toolgen/runtime/telemetry"
	tasksPkg      = "github.com/toolgen-dev/toolgen/runtime/tasks" // MCP tasks: sub-agents, spawn_agents, task tools, servers' tasks
	oauthPkg      = "github.com/toolgen-dev/toolgen/runtime/oauth"
	redisStorePkg = "github.com/toolgen-dev/toolgen/runtime/store/redis"
	websocketPkg  = "github.com/toolgen-dev/toolgen/runtime/websocket"
	restPkg       = "github.com/toolgen-dev/toolgen/runtime/rest"
)

// Link is an optional runtime package the generated registry imports for
// its side effect (it registers itself with the runtime), and the spec's
// reasons for it. A binary pays for such a package (its SDK, its
// compile time, its size) only when its spec declares what needs it.
type Link struct {
	Package string
	// Why names each declaration that pulls the package in:
	// `model fast (provider "openai")`.
	Why []string
}

// Links are the optional packages spec pulls in, sorted by package.
func Links(spec *ir.Spec) []Link {
	why := map[string][]string{}
	for _, m := range spec.Models {
		pkg := model.ProviderPackage(m.Provider)
		why[pkg] = append(why[pkg], fmt.Sprintf("model %s (provider %q)", m.Name, m.Provider))
	}
	for _, t := range spec.Tools {
		if t.REST != nil {
			why[restPkg] = append(why[restPkg], fmt.Sprintf("tool %s (rest block)", t.Name))
		}
		if t.Task != "" {
			why[tasksPkg] = append(why[tasksPkg], fmt.Sprintf("tool %s (task = %q)", t.Name, t.Task))
		}
	}
	for _, a := range spec.Agents {
		if len(a.Subagents) > 0 {
			why[tasksPkg] = append(why[tasksPkg], fmt.Sprintf("agent %s (subagents)", a.Name))
		}
		if a.Spawn {
			why[tasksPkg] = append(why[tasksPkg], fmt.Sprintf("agent %s (spawn_agents)", a.Name))
		}
	}
	for _, s := range spec.Servers {
		if s.Auth != nil {
			why[oauthPkg] = append(why[oauthPkg], fmt.Sprintf("server %s (auth block)", s.Name))
		}
		if s.Tasks {
			why[tasksPkg] = append(why[tasksPkg], fmt.Sprintf("server %s (tasks = true)", s.Name))
		}
		if s.Transport == ir.TransportWS {
			why[websocketPkg] = append(why[websocketPkg], fmt.Sprintf("server %s (transport = %q)", s.Name, s.Transport))
		}
	}
	if spec.Telemetry {
		why[telemetryPkg] = append(why[telemetryPkg], "toolgen { telemetry = true }")
	}
	if spec.Store == "redis" {
		why[redisStorePkg] = append(why[redisStorePkg], `toolgen { store = "redis" }`)
	}
	pkgs := make([]string, 0, len(why))
	for p := range why {
		pkgs = append(pkgs, p)
	}
	slices.Sort(pkgs)
	out := make([]Link, len(pkgs))
	for i, p := range pkgs {
		out[i] = Link{Package: p, Why: why[p]}
	}
	return out
}

// emitLinks adds the blank imports of Links to f.
func emitLinks(f interface{ Anon(...string) }, spec *ir.Spec) {
	for _, l := range Links(spec) {
		f.Anon(l.Package)
	}
}
