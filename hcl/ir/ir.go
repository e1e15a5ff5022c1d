// Package ir is the fully resolved form of a toolgen spec: what the loader in
// package hcl produces and what the emitters in package templates print.
//
// Every slice is sorted by name, every reference is resolved to a name that
// exists in the same Spec, and every value is checked. Emitters make no
// decisions; they print. Ranges are kept for diagnostics found late (during
// generation), and no hcl.Expression survives into the IR.
//
// The exported slices are for emitting, in order; lookups by name go
// through Spec's methods (lookup.go), which index the slices once.
package ir

import (
	"encoding/json"
	"slices"
	"sync"
	"time"

	"github.com/hashicorp/hcl/v2"
	"github.com/toolgen-dev/toolgen/runtime/decl"
)

// Spec is one resolved spec directory.
type Spec struct {
	Dir       string   // the spec directory as given on the command line
	Files     []string // spec files, relative to Dir, sorted
	Package   string   // Go package name of the generated code
	OutDir    string   `json:",omitempty"` // where generate writes the code; "" means Dir
	Separator string   // between server and tool in exposed names; default "__"

	// PackageDefaulted: the spec sets no package, so Package is the spec
	// directory's name, which hcl.OutPackage replaces when the code goes
	// elsewhere.
	PackageDefaulted bool `json:",omitempty"`

	Defaults  Defaults
	Queues    []*Queue
	Servers   []*Server
	Policies  []*Policy
	Tools     []*Tool // declared tools (policy, rest, go)
	Bundles   []*Bundle
	Agents    []*Agent
	Workflows []*Workflow
	Models    []*Model    // sorted by name
	Enrich    *Enrich     `json:",omitempty"` // toolgen { enrich }: how `toolgen enrich` asks
	Prompts   []*Prompt   `json:",omitempty"` // declared prompts
	Resources []*Resource `json:",omitempty"` // declared resources
	Skills    []*Skill    `json:",omitempty"` // declared skills (skill.go)

	// Telemetry: toolgen { telemetry = true } links the OpenTelemetry SDK
	// (runtime/telemetry) into the agent binary.
	Telemetry bool `json:",omitempty"`
	// Store: toolgen { store = "redis" } links runtime/store/redis.
	Store string `json:",omitempty"`

	// Catalog is every tool known at generate time, by exposed name, sorted:
	// declared tools plus the tools of each server recorded in the lock file
	// (namespaced "<server><sep><tool>", filtered by the server's allow/deny).
	// It is what globs match against and what the search index is built from.
	Catalog []*CatalogTool

	// index is built from the slices on the first lookup; they must not
	// change after it.
	indexOnce sync.Once
	index     *index
}

// Defaults holds the defaults block with every unset value filled in.
type Defaults struct {
	ToolTimeout      time.Duration // default 30s
	ResponseMaxBytes int           // default 100000
	StartupTimeout   time.Duration // default 10s
	MaxDepth         int           // default 2
	ContextBudget    int           // default 0 = unlimited
	InitConcurrency  int           // default 4
	Model            string        // defaults { model = model.NAME }; "" when unset
	Range            hcl.Range
}

// Value is a string that may contain env() lookups, resolved when the agent
// binary runs. A plain literal has one Lit part. Secrets never appear as
// literals here unless the user wrote them literally (which is a warning).
type Value struct {
	Parts []ValuePart
}

// Decl is the value as the registry declares it; nil when it has no part.
func (v Value) Decl() decl.Value {
	if len(v.Parts) == 0 {
		return nil
	}
	return slices.Clone(decl.Value(v.Parts))
}

// ValuePart is a literal or an environment variable name (with its
// default, if any), as the registry declares it.
type ValuePart = decl.ValuePart

// KeyValue is one entry of a map attribute (env, headers), sorted by Key.
type KeyValue struct {
	Key   string
	Value Value
}

// Model is a model block: where an agent binary sends its agents' turns.
// BaseURL, APIKey and Headers keep env() as run-time lookups.
type Model struct {
	Name        string
	GoName      string
	Provider    string // openai | anthropic
	ModelName   Value  // the provider's name for it; env() when the binary's user picks it
	BaseURL     Value
	APIKey      Value
	MaxTokens   int
	Temperature *float64
	Timeout     time.Duration
	Headers     []KeyValue
	Range       hcl.Range
}

type Queue struct {
	Name       string
	GoName     string // exported identifier part, e.g. "Github"
	Concurrent int
	Range      hcl.Range
}

// Transport names.
const (
	TransportStdio = "stdio"
	TransportHTTP  = "http"
	TransportSSE   = "sse"
	TransportWS    = "ws"
	TransportTCP   = "tcp"
)

type Server struct {
	Name            string
	GoName          string
	Transport       string
	Command         string
	Args            []string
	Env             []KeyValue
	URL             Value // http, sse, ws
	Address         string
	Headers         []KeyValue
	Trusted         bool // trust = "trusted" (the default)
	AllowTools      []string
	DenyTools       []string
	Queue           string // queue name or ""
	Timeout         time.Duration
	Cache           time.Duration // response cache TTL; 0 = off
	StartupTimeout  time.Duration
	ProtocolVersion string // default "2025-11-25"
	HealthCheck     *HealthCheck
	Auth            *ServerAuth   // auth.go
	Locked          []*LockedTool // from toolgen.lock.json, sorted; nil when never locked
	// LockedSkills are its skills in toolgen.lock.json (sorted; nil when
	// the lock recorded none).
	LockedSkills   []decl.LockedSkill `json:",omitempty"`
	Sampling       string             // who answers its sampling requests: host (""), model, deny
	Elicitation    string             // who answers its elicitation requests: host (""), deny
	AllowPrompts   []string           `json:",omitempty"` // names or globs; nil: all
	DenyPrompts    []string           `json:",omitempty"`
	AllowResources []string           `json:",omitempty"` // names, URIs or globs over them; nil: all
	DenyResources  []string           `json:",omitempty"`
	AllowSkills    []string           `json:",omitempty"` // skill names or globs; nil: all
	DenySkills     []string           `json:",omitempty"`
	Range          hcl.Range

	// ForwardInstructions: the server's initialize instructions reach the
	// host (and a loop's system prompt); default false.
	ForwardInstructions bool

	// Tasks: a host's task call of the server's tools becomes the
	// server's task, passed through (tasks = true); default false.
	Tasks bool `json:",omitempty"`

	// OnDrift: what agents see of a tool that differs from the lock file
	// (warn, pin, refuse); "" leaves the runtime's default (pin when
	// untrusted, warn when trusted: decl.Server.DriftMode).
	OnDrift string `json:",omitempty"`
}

type HealthCheck struct {
	Interval time.Duration
	Timeout  time.Duration
}

// LockedTool is one tool recorded by `toolgen lock`.
type LockedTool struct {
	Name        string // the server's own name for it
	Description string
	InputSchema json.RawMessage
	Hash        string
	// As the server listed them; empty in lock files written before.
	Title        string
	OutputSchema json.RawMessage
	Annotations  json.RawMessage // MCP's form: {"readOnlyHint":true,…}
	Meta         json.RawMessage
}

// Builtin policy kinds.
const (
	BuiltinFSRead    = "fs_read"
	BuiltinFSWrite   = "fs_write"
	BuiltinShellExec = "shell_exec"
)

type Policy struct {
	Name            string
	GoName          string
	Builtin         string
	AllowedPaths    []string // relative to the agent's working directory at run time
	AllowedCommands []string
	Timeout         time.Duration
	MaxOutputBytes  int
	AllowHardlinks  bool // fs_read, fs_write: files with several hard links are not refused
	// shell_exec's resource limits per call; zero: the runtime's defaults
	MaxProcesses int
	MaxMemoryMiB int
	MaxCPUTime   time.Duration
	Range        hcl.Range
}

// Tool kinds.
const (
	KindBuiltin = "builtin"
	KindGo      = "go"
	KindREST    = "rest"
	KindMCP     = "mcp"
)

type Tool struct {
	Name        string
	GoName      string
	Description string
	Kind        string // KindBuiltin (Policy set), KindREST (REST set), KindGo (Go set)
	Policy      string
	REST        *REST
	Go          *GoFunc
	InputSchema json.RawMessage // compact JSON; for a Go tool only when the spec gives one (else derived from Args at generate time)
	Category    string
	Keywords    []string
	RenamedFrom []string
	Queue       string
	Timeout     time.Duration // 0: server/default
	Range       hcl.Range
	// What tools/list shows besides; OutputSchema for a Go tool comes from
	// its result type at generate time (templates.LoadGoTools).
	Title        string
	Annotations  *ToolAnnotations
	OutputSchema json.RawMessage
	AlwaysLoad   bool   `json:",omitempty"` // hosts that search tools keep it loaded
	Task         string `json:",omitempty"` // "optional" or "required": runs as an MCP task (runtime/tasks)
}

// ToolAnnotations are the MCP hints declared in a tool's annotations
// block; nil: not said.
type ToolAnnotations struct {
	ReadOnly, Destructive, Idempotent, OpenWorld *bool
}

type REST struct {
	Method  string
	URL     Value // RFC 6570 template over the arguments
	Headers []KeyValue
	Range   hcl.Range
}

// GoFunc names a Go function tool: go = "import/path.Func". Its signature
// is type-checked at generate time (templates.LoadGoTools), not stored here.
type GoFunc struct {
	ImportPath string
	Func       string
	Range      hcl.Range // of the go attribute's value
}

// Bundle modes.
const (
	ModeDirect = "direct"
	ModeMeta   = "meta"
)

type Bundle struct {
	Name       string
	GoName     string
	Mode       string
	Server     string   // "" for a bundle of declared tools
	Tools      []string // declared tool names
	AllowTools []string
	DenyTools  []string
	Skills     []string `json:",omitempty"` // declared skills it carries, sorted
	Range      hcl.Range
}

// Use entry kinds.
const (
	UseTool     = "tool"
	UseServer   = "server"
	UseBundle   = "bundle"
	UseGlob     = "glob"
	UsePrompt   = "prompt"
	UseResource = "resource"
	UseSkill    = "skill"
	UseRuntime  = "runtime" // one of decl.OptInTools
)

type UseEntry struct {
	Kind    string   // UseTool, UseServer, UseBundle, UseGlob, UsePrompt, UseResource
	Name    string   // the referenced name or the glob pattern
	Matches []string // for globs: the catalog names it matches now, sorted
	Range   hcl.Range
}

type Alias struct {
	Name   string
	Target string
	Range  hcl.Range
}

// AllowEntry is one entry of tools.allowed: a name, an alias or a glob.
type AllowEntry struct {
	Pattern string
	IsGlob  bool
	Matches []string // catalog names it matches now (through aliases too), sorted
	Range   hcl.Range
}

type Agent struct {
	Name        string
	GoName      string
	Description string
	Use         []UseEntry   // declaration order (resolution order matters for explain)
	Allowed     []AllowEntry // nil: omitted (everything in use); ["*"] is one glob entry
	AllowedSet  bool         // tools.allowed was written
	Allow       *AllowSet    // what tools.allowed admits; nil when it is omitted
	Aliases     []Alias      // sorted by Name
	Discovery   bool
	Subagents   []string
	Spawn       bool
	MaxDepth    int // defaults.max_depth when unset
	Router      []string
	// Skills are the skills the agent may use, sorted: named in tools.use,
	// matched by its globs, or carried by the bundles it uses.
	Skills []string `json:",omitempty"`
	// Model is the model the agent runs on in the binary: its own, else
	// defaults.model; "" when neither (it runs only under a sampling host).
	Model        string
	Instructions string // the system prompt; file() already read
	MaxTurns     int    // default 20
	Range        hcl.Range
}

// AllowSet is an agent's tools.allowed as generated code checks it: a
// switch over the names known now, then the globs, kept for tools servers
// add at run time. Without tools.allowed there is none: the runtime allows
// everything in use and never asks.
type AllowSet struct {
	Names []string // sorted, unique: each entry as written, its alias target, and the catalog names it matches
	Globs []string // the glob entries, in declaration order
}

// Prompt is a declared prompt. A template becomes one user message.
type Prompt struct {
	Name        string
	GoName      string
	Description string
	Arguments   []PromptArgument // declaration order
	Messages    []PromptMessage  // declaration order; text holds {argument} placeholders
	Range       hcl.Range
}

type PromptArgument struct {
	Name        string
	Description string
	Required    bool
}

type PromptMessage struct {
	Role string // "user" or "assistant"
	Text string
}

// Resource is a declared text resource.
type Resource struct {
	Name        string
	GoName      string
	URI         string
	Description string
	MIMEType    string // default text/plain
	Text        string
	Range       hcl.Range
}

type Workflow struct {
	Name   string
	GoName string
	Roles  []*Role
	Range  hcl.Range
}

type Role struct {
	Name  string
	Steps []*Step
	Range hcl.Range
}

type Step struct {
	Name    string
	Bundles []string
	Range   hcl.Range
}

// CatalogTool is one tool of the generate-time pool.
type CatalogTool struct {
	Name        string // exposed name
	Description string
	Kind        string
	Server      string // for KindMCP
	Original    string // the server's own name for KindMCP
	Category    string
	Keywords    []string
	Params      []string // top-level input schema property names, sorted

	// Queries is the tool's stored enrichment (toolgen.enrich.json), which
	// the search index holds as one more field; EnrichHash is the hash
	// stored with it, of the tool as it was enriched, and EnrichRange the
	// tool's entry in that file.
	Queries     []string
	EnrichHash  string
	EnrichRange hcl.Range
}

// Enrich is toolgen { enrich { … } }: the model `toolgen enrich` asks for
// each tool's search queries. Zero counts mean the enrich package's
// defaults.
type Enrich struct {
	Model       string // a declared model's name
	Queries     int    `json:",omitempty"`
	Concurrency int    `json:",omitempty"`
	// AtRunTime also enriches, in the agent binary, the tools of servers
	// without a lock entry.
	AtRunTime bool `json:",omitempty"`
	Range     hcl.Range
}
