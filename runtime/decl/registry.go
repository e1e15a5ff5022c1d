package decl

import (
	"context"
	"encoding/json"
	"time"

	"github.com/toolgen-dev/toolgen/runtime/search"
)

// Registry is the static description of one spec, emitted by toolgen as a
// package-level value in registry_gen.go. Slices are sorted by name.
type Registry struct {
	Package   string
	Separator string // "__" unless the spec says otherwise
	Defaults  Defaults
	Queues    []Queue
	Servers   []Server
	Policies  []Policy
	Tools     []Tool // declared tools and locked server tools, by exposed name
	Bundles   []Bundle
	Agents    []Agent
	Workflows []Workflow
	Models    []Model    // model blocks (model.go)
	Prompts   []Prompt   // declared prompts, by name
	Resources []Resource // declared resources, by name
	Skills    []Skill    // declared skills, by name (skill.go)

	// Index is the precompiled search index over Tools; nil means build it
	// at start-up.
	Index *search.Index
	// Enrich, when set, enriches the tools found at run time (model.go);
	// nil: they are indexed with their own words only.
	Enrich *Enrich

	// Route returns the bundles of a workflow step; generated as a switch,
	// deny by default (nil for an unknown address).
	Route func(workflow, role, step string) []string
}

type Defaults struct {
	ToolTimeout      time.Duration
	ResponseMaxBytes int
	StartupTimeout   time.Duration
	MaxDepth         int
	ContextBudget    int // 0: unlimited
	InitConcurrency  int
	Model            string // defaults.model: the model of agents without their own
}

// Value is a string with env() lookups, resolved when the binary runs so that
// no secret is baked into generated code.
type Value []ValuePart

// ValuePart is a literal (Env == "") or an environment variable name: an
// env("NAME") call, or env("NAME", "DEFAULT") whose Default stands in
// when the variable is unset.
type ValuePart struct {
	Lit        string
	Env        string
	Default    string `json:",omitempty"`
	HasDefault bool   `json:",omitempty"`
}

// KeyValue is one entry of env or headers.
type KeyValue struct {
	Key   string
	Value Value
}

type Queue struct {
	Name       string
	Concurrent int
}

type Server struct {
	Name            string
	Transport       string // stdio | http | sse | ws | tcp
	Command         string
	Args            []string
	Env             []KeyValue
	URL             Value
	Address         string
	Headers         []KeyValue
	Trusted         bool
	AllowTools      []string // globs allowed
	DenyTools       []string
	Queue           string
	Timeout         time.Duration
	Cache           time.Duration
	StartupTimeout  time.Duration
	ProtocolVersion string
	HealthInterval  time.Duration // 0: no health checks
	HealthTimeout   time.Duration
	Auth            *ServerAuth // http, sse: OAuth (auth.go); nil: none
	// Who answers the server's sampling requests during a call: "host"
	// (or ""), the host that made it; "model", the agent's model; "deny".
	// Elicitation: "host" (or "") or "deny".
	Sampling    string
	Elicitation string

	// Which of the server's prompts and resources agents may see: names
	// (resources: names or URIs) or globs; omitted allow lists admit all.
	AllowPrompts   []string
	DenyPrompts    []string
	AllowResources []string
	DenyResources  []string
	// Which of the server's skills (the Skills extension) agents may see.
	AllowSkills []string
	DenySkills  []string
	// LockedSkills are the server's skills as toolgen lock recorded them;
	// SkillsLocked says the lock recorded them at all.
	LockedSkills []LockedSkill
	SkillsLocked bool
	// ForwardInstructions passes the server's initialize instructions on
	// to the host; without it they are not shown to anyone.
	ForwardInstructions bool
	// Tasks passes the server's tasks through: a host's task call of its
	// tools becomes a task on the server (runtime/tasks, linked for it).
	Tasks bool
	// OnDrift is what agents see of a tool that differs from the lock
	// file: DriftWarn, DriftPin or DriftRefuse; "" is the default (DriftMode).
	OnDrift string
}

// What a server's on_drift can say.
const (
	DriftWarn   = "warn"   // serve the live tool, log lock.drift
	DriftPin    = "pin"    // serve the locked tool; hold back tools the lock lacks
	DriftRefuse = "refuse" // hide changed and new tools until toolgen lock runs again
)

// DriftMode is the server's on_drift with its default filled in: pin for
// an untrusted server, warn for a trusted one.
func (s *Server) DriftMode() string {
	switch {
	case s == nil:
		return DriftWarn
	case s.OnDrift != "":
		return s.OnDrift
	case !s.Trusted:
		return DriftPin
	}
	return DriftWarn
}

type Policy struct {
	Name            string
	Builtin         string // fs_read | fs_write | shell_exec
	AllowedPaths    []string
	AllowedCommands []string
	Timeout         time.Duration
	MaxOutputBytes  int
	AllowHardlinks  bool // fs_read, fs_write: files with several names are not refused
	// shell_exec's resource limits per call; zero: builtin.ShellLimits' defaults
	MaxProcesses int           `json:",omitempty"`
	MaxMemoryMiB int           `json:",omitempty"`
	MaxCPUTime   time.Duration `json:",omitempty"`
}

// ToolKind says which provider runs a tool.
type ToolKind string

const (
	KindBuiltin   ToolKind = "builtin"
	KindGo        ToolKind = "go"
	KindREST      ToolKind = "rest"
	KindMCP       ToolKind = "mcp"
	KindAgent     ToolKind = "agent"     // sub-agents and spawn_agents
	KindRouter    ToolKind = "router"    // router__handoff-to
	KindInternal  ToolKind = "internal"  // agent__final_report, agent__task_status, agent__batch
	KindDiscovery ToolKind = "discovery" // tool_find, tool_describe, tool_load, tool_active
	KindMeta      ToolKind = "meta"      // mcp_list_tools, mcp_get_tool_schema, mcp_call_tool
	KindOutput    ToolKind = "output"    // output_read
)

// GoFunc is the generated wrapper of a Go function tool: it decodes args
// into the user's Args struct, calls the function and encodes the result.
type GoFunc func(ctx context.Context, args json.RawMessage) (json.RawMessage, error)

type Tool struct {
	Name        string // exposed name
	Description string
	Kind        ToolKind
	InputSchema json.RawMessage
	// Title, Annotations, OutputSchema and Meta are what tools/list shows
	// besides the name and description: declared in HCL, or a server
	// tool's as the lock file recorded them (Meta is the server's _meta).
	Title        string
	Annotations  *ToolAnnotations
	OutputSchema json.RawMessage
	Meta         json.RawMessage
	// RichResult: a Go tool whose Result is runtime.Rich; its wrapper
	// encodes it as an MCP CallToolResult (content blocks and all).
	RichResult  bool
	Category    string
	Keywords    []string
	RenamedFrom []string
	Policy      string // KindBuiltin
	REST        *REST  // KindREST
	Go          GoFunc // KindGo
	Server      string // KindMCP: the server name
	Original    string // KindMCP: the server's own tool name
	Queue       string
	Timeout     time.Duration
}

type REST struct {
	Method  string
	URL     Value // RFC 6570 template over the arguments
	Headers []KeyValue
}

type Bundle struct {
	Name       string
	Mode       string // direct | meta
	Server     string
	Tools      []string
	AllowTools []string
	DenyTools  []string
	Skills     []string // declared skills the bundle carries
}

// UseKind is the kind of a tools.use entry.
type UseKind string

const (
	UseTool     UseKind = "tool"
	UseServer   UseKind = "server"
	UseBundle   UseKind = "bundle"
	UseGlob     UseKind = "glob"
	UsePrompt   UseKind = "prompt"
	UseResource UseKind = "resource"
	// UseRuntime opts in to one of OptInTools.
	UseRuntime UseKind = "runtime"
)

type Use struct {
	Kind UseKind
	Name string // a name, or a glob pattern for UseGlob
}

type Alias struct {
	Name   string
	Target string
}

type Agent struct {
	Name        string
	Description string
	Use         []Use
	Allowed     []string // names, aliases or globs; nil: everything in Use
	Aliases     []Alias
	Discovery   bool
	Subagents   []string
	Spawn       bool
	MaxDepth    int
	Router      []string
	// Skills are the declared skills the agent may use, sorted: named in
	// tools.use, matched by its globs, or carried by its bundles.
	Skills []string

	// Model names the agent's model block (its own, else defaults.model,
	// resolved by toolgen); "" when it has none and runs only under an MCP
	// host that samples.
	Model string
	// Instructions are the agent's system prompt (file() already read).
	Instructions string
	// MaxTurns bounds its loop's model calls; 0 means DefaultMaxTurns.
	MaxTurns int

	// Allow is the generated allow check for exact names known at generate
	// time; Allowed globs are still matched at run time for server tools
	// discovered later. Nil: derive from Allowed.
	Allow func(name string) bool
}

// Prompt is a declared prompt: its messages hold {argument} placeholders
// that the runtime fills in on prompts/get.
type Prompt struct {
	Name        string
	Description string
	Arguments   []PromptArgument
	Messages    []PromptMessage
}

type PromptArgument struct {
	Name        string
	Description string
	Required    bool
}

type PromptMessage struct {
	Role string // user | assistant
	Text string
}

// Resource is a declared text resource, its text read at generate time.
type Resource struct {
	Name        string
	URI         string
	Description string
	MIMEType    string
	Text        string
}

type Workflow struct {
	Name  string
	Roles []Role
}

type Role struct {
	Name  string
	Steps []Step
}

type Step struct {
	Name    string
	Bundles []string
}

// ToolAnnotations are MCP's hints about a tool; nil means not said.
type ToolAnnotations struct {
	ReadOnly, Destructive, Idempotent, OpenWorld *bool
}
