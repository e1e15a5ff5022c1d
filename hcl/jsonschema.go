package hcl

import (
	"encoding/json"

	"github.com/invopop/jsonschema"
)

// The types below mirror the blocks in HCL's JSON syntax (*.hcl.json):
// labelled blocks are objects keyed by label, references are strings such
// as "tool.read_file", and env() is written in a template string,
// "Bearer ${env(\"TOKEN\")}". They exist only to produce the JSON Schema of
// the spec format; a test keeps them in step with the decoders' schemas.

// SpecFile is one spec file in JSON syntax.
type SpecFile struct {
	Toolgen  *ToolgenJSON            `json:"toolgen,omitempty" jsonschema_description:"Settings of the generated Go package."`
	Defaults *DefaultsJSON           `json:"defaults,omitempty" jsonschema_description:"Defaults for every server, tool and agent."`
	Queue    map[string]QueueJSON    `json:"queue,omitempty" jsonschema_description:"Named concurrency limits, by name."`
	Server   map[string]ServerJSON   `json:"server,omitempty" jsonschema_description:"MCP servers, by name."`
	Policy   map[string]PolicyJSON   `json:"policy,omitempty" jsonschema_description:"Builtin tool policies (fs_read, fs_write, shell_exec), by name."`
	Tool     map[string]ToolJSON     `json:"tool,omitempty" jsonschema_description:"Declared tools, by name."`
	Bundle   map[string]BundleJSON   `json:"bundle,omitempty" jsonschema_description:"Tool bundles, by name."`
	Agent    map[string]AgentJSON    `json:"agent,omitempty" jsonschema_description:"Agents, by name."`
	Workflow map[string]WorkflowJSON `json:"workflow,omitempty" jsonschema_description:"Routing tables: workflow, role, step, bundles."`
	Model    map[string]ModelJSON    `json:"model,omitempty" jsonschema_description:"Language models the agent binary runs agents on, by name."`
	Prompt   map[string]PromptJSON   `json:"prompt,omitempty" jsonschema_description:"Declared prompts, by name."`
	Resource map[string]ResourceJSON `json:"resource,omitempty" jsonschema_description:"Declared text resources, by name."`
	Skill    map[string]SkillJSON    `json:"skill,omitempty" jsonschema_description:"Declared skills (a directory with a SKILL.md), by name."`
	Comment  string                  `json:"//,omitempty" jsonschema_description:"A comment, ignored."`
}

type ToolgenJSON struct {
	Package   string      `json:"package,omitempty" jsonschema_description:"Go package name of the generated code; default: the spec directory's name."`
	Separator string      `json:"separator,omitempty" jsonschema_description:"Between server and tool in exposed names; default \"__\"."`
	Enrich    *EnrichJSON `json:"enrich,omitempty" jsonschema_description:"How toolgen enrich asks a model for each tool's search queries."`
	Telemetry bool        `json:"telemetry,omitempty" jsonschema_description:"Link the OpenTelemetry SDK into the agent binary: Prometheus /metrics on the status page, OTLP over HTTP when OTEL_EXPORTER_OTLP_* is set. Default false: the binary records nothing and stays small."`
	Store     string      `json:"store,omitempty" jsonschema:"enum=memory,enum=redis" jsonschema_description:"The shared store the agent binary links, for serve --store (replicas): redis links the Redis client. Default memory: nothing linked."`
}

type EnrichJSON struct {
	Model       string `json:"model" jsonschema:"required" jsonschema_description:"\"model.NAME\": the declared model to ask."`
	Queries     int    `json:"queries,omitempty" jsonschema_description:"Requests per tool, 1 to 30; default 6."`
	Concurrency int    `json:"concurrency,omitempty" jsonschema_description:"Requests in flight, 1 to 64; default 4."`
	AtRunTime   bool   `json:"at_run_time,omitempty" jsonschema_description:"Also enrich, in the agent binary and in the background, the tools of servers without a lock entry; answers are cached on disk."`
}

type DefaultsJSON struct {
	ToolTimeout      string `json:"tool_timeout,omitempty" jsonschema_description:"Go duration; default \"30s\"."`
	ResponseMaxBytes int    `json:"response_max_bytes,omitempty" jsonschema_description:"Larger outputs are spilled to disk; default 100000."`
	StartupTimeout   string `json:"startup_timeout,omitempty" jsonschema_description:"Go duration; default \"10s\"."`
	MaxDepth         int    `json:"max_depth,omitempty" jsonschema_description:"Sub-agent spawn depth; default 2."`
	ContextBudget    int    `json:"context_budget,omitempty" jsonschema_description:"Tokens of tool output one session may add; 0 = unlimited."`
	InitConcurrency  int    `json:"init_concurrency,omitempty" jsonschema_description:"MCP servers started in parallel; default 4."`
	Model            string `json:"model,omitempty" jsonschema_description:"The model of every agent without its own: \"model.NAME\"."`
}

type ModelJSON struct {
	Provider    string            `json:"provider" jsonschema:"required,enum=openai,enum=anthropic" jsonschema_description:"openai: Chat Completions (OpenAI, Azure OpenAI, Ollama, vLLM, llama.cpp, LM Studio, OpenRouter ...); anthropic: the Messages API."`
	Name        string            `json:"name" jsonschema:"required" jsonschema_description:"The provider's model name, such as \"gpt-4.1-mini\"."`
	BaseURL     string            `json:"base_url,omitempty" jsonschema_description:"OpenAI-compatible: ending in /v1; Anthropic: the host root; may use ${env(\"NAME\")}."`
	APIKey      string            `json:"api_key,omitempty" jsonschema_description:"Read when the binary runs: ${env(\"OPENAI_API_KEY\")}; never compiled in."`
	MaxTokens   int               `json:"max_tokens,omitempty" jsonschema:"minimum=1" jsonschema_description:"Cap on each answer."`
	Temperature *float64          `json:"temperature,omitempty" jsonschema:"minimum=0,maximum=2"`
	Timeout     string            `json:"timeout,omitempty" jsonschema_description:"Go duration, per request attempt."`
	Headers     map[string]string `json:"headers,omitempty" jsonschema_description:"Added to every request; use ${env(\"NAME\")} for secrets."`
}

type QueueJSON struct {
	Concurrent int `json:"concurrent" jsonschema:"required,minimum=1" jsonschema_description:"Calls that may run at once."`
}

type ServerJSON struct {
	Transport       string            `json:"transport,omitempty" jsonschema:"enum=stdio,enum=http,enum=sse,enum=ws,enum=tcp" jsonschema_description:"Inferred from command, url or address when omitted."`
	Command         string            `json:"command,omitempty" jsonschema_description:"stdio: the program to run (no shell)."`
	Args            []string          `json:"args,omitempty" jsonschema_description:"stdio: its arguments."`
	Env             map[string]string `json:"env,omitempty" jsonschema_description:"stdio: environment; values may use ${env(\"NAME\")}."`
	URL             string            `json:"url,omitempty" jsonschema_description:"http, sse, ws: the endpoint; may use ${env(\"NAME\")}."`
	Address         string            `json:"address,omitempty" jsonschema_description:"tcp: host:port."`
	Headers         map[string]string `json:"headers,omitempty" jsonschema_description:"http, sse, ws: request headers; use ${env(\"NAME\")} for secrets."`
	Trust           string            `json:"trust,omitempty" jsonschema:"enum=trusted,enum=untrusted" jsonschema_description:"Untrusted servers are meta-only and need allow_tools."`
	AllowTools      []string          `json:"allow_tools,omitempty" jsonschema_description:"Tool names or globs the server may expose."`
	DenyTools       []string          `json:"deny_tools,omitempty" jsonschema_description:"Tool names or globs never exposed."`
	Queue           string            `json:"queue,omitempty" jsonschema_description:"A reference: \"queue.NAME\"."`
	Timeout         string            `json:"timeout,omitempty" jsonschema_description:"Go duration per call; default defaults.tool_timeout."`
	Cache           string            `json:"cache,omitempty" jsonschema_description:"Go duration: response cache TTL; default off."`
	Sampling        string            `json:"sampling,omitempty" jsonschema:"enum=host,enum=model,enum=deny" jsonschema_description:"Who answers the server's sampling requests: the host that made the call (default), the agent's model, or nobody."`
	Elicitation     string            `json:"elicitation,omitempty" jsonschema:"enum=host,enum=deny" jsonschema_description:"Who answers the server's elicitation requests: the host that made the call (default) or nobody."`
	StartupTimeout  string            `json:"startup_timeout,omitempty" jsonschema_description:"Go duration; default defaults.startup_timeout."`
	ProtocolVersion string            `json:"protocol_version,omitempty" jsonschema_description:"Newest MCP protocol version to offer; the server negotiates down. Default: the newest the runtime speaks (2026-07-28)."`
	HealthCheck     *HealthCheckJSON  `json:"health_check,omitempty" jsonschema_description:"Periodic ping."`
	Auth            *ServerAuthJSON   `json:"auth,omitempty" jsonschema_description:"http, sse: OAuth 2.1 (log in with: AGENT login SERVER)."`
	AllowPrompts    []string          `json:"allow_prompts,omitempty" jsonschema_description:"Prompt names or globs agents may see; omitted: all (none for an untrusted server)."`
	DenyPrompts     []string          `json:"deny_prompts,omitempty" jsonschema_description:"Prompt names or globs never exposed."`
	AllowResources  []string          `json:"allow_resources,omitempty" jsonschema_description:"Resource names, URIs or globs over them agents may see; omitted: all (none for an untrusted server)."`
	DenyResources   []string          `json:"deny_resources,omitempty" jsonschema_description:"Resource names, URIs or globs never exposed."`
	AllowSkills     []string          `json:"allow_skills,omitempty" jsonschema_description:"Names or globs of the server's skills (Skills extension) agents may see; omitted: all (none for an untrusted server)."`
	DenySkills      []string          `json:"deny_skills,omitempty" jsonschema_description:"Skill names or globs never exposed."`

	ForwardInstructions bool   `json:"forward_instructions,omitempty" jsonschema_description:"Pass the server's initialize instructions on to the host; default false."`
	Tasks               bool   `json:"tasks,omitempty" jsonschema_description:"A host's task call of the server's tools becomes the server's task (Tasks extension), polled, answered and cancelled through the agent; not over sse; default false."`
	OnDrift             string `json:"on_drift,omitempty" jsonschema:"enum=warn,enum=pin,enum=refuse" jsonschema_description:"A tool that differs from toolgen.lock.json: warn (serve it, log lock.drift), pin (serve the locked tool, check arguments against the locked schema) or refuse (hide it until re-locked); default pin when untrusted, warn when trusted."`
}

type HealthCheckJSON struct {
	Interval string `json:"interval,omitempty" jsonschema_description:"Go duration; default \"30s\"."`
	Timeout  string `json:"timeout,omitempty" jsonschema_description:"Go duration; default \"5s\"."`
}

type PolicyJSON struct {
	Builtin         string   `json:"builtin" jsonschema:"required,enum=fs_read,enum=fs_write,enum=shell_exec"`
	AllowedPaths    []string `json:"allowed_paths,omitempty" jsonschema_description:"fs_read, fs_write: the only paths that can be touched."`
	AllowedCommands []string `json:"allowed_commands,omitempty" jsonschema_description:"shell_exec: program names that may run (argv[0])."`
	Timeout         string   `json:"timeout,omitempty" jsonschema_description:"Go duration."`
	MaxOutputBytes  int      `json:"max_output_bytes,omitempty"`
	MaxProcesses    int      `json:"max_processes,omitempty" jsonschema_description:"shell_exec: processes a call may run at once; default 512."`
	MaxMemoryMiB    int      `json:"max_memory_mib,omitempty" jsonschema_description:"shell_exec: memory of a call (cgroup) or of each process (rlimit), in MiB; default 2048."`
	MaxCPUTime      string   `json:"max_cpu_time,omitempty" jsonschema_description:"shell_exec: CPU time of each process, a Go duration of whole seconds; default \"5m\"."`
	AllowHardlinks  bool     `json:"allow_hardlinks,omitempty" jsonschema_description:"fs_read, fs_write: also touch files with several hard links (refused by default: another name may lie outside the allowed paths)."`
}

type ToolJSON struct {
	Description  string           `json:"description,omitempty" jsonschema_description:"What the tool does; may be ${file(\"PATH\")}."`
	Policy       string           `json:"policy,omitempty" jsonschema_description:"A builtin tool: \"policy.NAME\"."`
	Category     string           `json:"category,omitempty"`
	Keywords     []string         `json:"keywords,omitempty" jsonschema_description:"Extra words for tool search."`
	RenamedFrom  []string         `json:"renamed_from,omitempty" jsonschema_description:"Old names; calls to them fail with \"renamed to NAME\"."`
	REST         *RESTJSON        `json:"rest,omitempty" jsonschema_description:"A REST tool."`
	Go           string           `json:"go,omitempty" jsonschema_description:"A Go function tool: \"import/path.Func\"."`
	InputSchema  any              `json:"input_schema,omitempty" jsonschema:"oneof_type=object;string" jsonschema_description:"JSON Schema of the arguments (type object), or ${file(\"schema.json\")}."`
	Queue        string           `json:"queue,omitempty" jsonschema_description:"A reference: \"queue.NAME\"."`
	Timeout      string           `json:"timeout,omitempty" jsonschema_description:"Go duration."`
	Title        string           `json:"title,omitempty" jsonschema_description:"A display name for hosts."`
	AlwaysLoad   bool             `json:"always_load,omitempty" jsonschema_description:"Hosts that search tools themselves keep this one loaded (_meta anthropic/alwaysLoad)."`
	Task         string           `json:"task,omitempty" jsonschema:"enum=optional,enum=required,enum=after_input" jsonschema_description:"Runs as an MCP task (Tasks extension) for hosts that declare it: optional, required (hosts without tasks get error -32021), or after_input (asks in input-required rounds first and becomes a task when the Go tool calls runtime.ContinueAsTask)."`
	Annotations  *AnnotationsJSON `json:"annotations,omitempty" jsonschema_description:"MCP tool annotations (hints for hosts)."`
	OutputSchema any              `json:"output_schema,omitempty" jsonschema:"oneof_type=object;string" jsonschema_description:"JSON Schema of structured results, or ${file(\"schema.json\")}; a Go tool's comes from its result type."`
}

type AnnotationsJSON struct {
	ReadOnly    *bool `json:"read_only,omitempty" jsonschema_description:"The tool does not change its environment."`
	Destructive *bool `json:"destructive,omitempty" jsonschema_description:"The tool may destroy data (meaningful when not read_only)."`
	Idempotent  *bool `json:"idempotent,omitempty" jsonschema_description:"Calling it again with the same arguments has no further effect."`
	OpenWorld   *bool `json:"open_world,omitempty" jsonschema_description:"The tool reaches outside systems (the web, other services)."`
}

type RESTJSON struct {
	Method  string            `json:"method,omitempty" jsonschema:"enum=GET,enum=POST,enum=PUT,enum=PATCH,enum=DELETE,enum=HEAD"`
	URL     string            `json:"url" jsonschema:"required" jsonschema_description:"RFC 6570 template over the arguments."`
	Headers map[string]string `json:"headers,omitempty"`
}

type BundleJSON struct {
	Mode       string   `json:"mode,omitempty" jsonschema:"enum=direct,enum=meta" jsonschema_description:"direct exposes the tools; meta exposes mcp_list_tools, mcp_get_tool_schema and mcp_call_tool."`
	Server     string   `json:"server,omitempty" jsonschema_description:"\"server.NAME\"."`
	Tools      []string `json:"tools,omitempty" jsonschema_description:"Declared tools: [\"tool.NAME\", ...]."`
	Skills     []string `json:"skills,omitempty" jsonschema_description:"Declared skills the bundle carries: [\"skill.NAME\", ...]."`
	AllowTools []string `json:"allow_tools,omitempty"`
	DenyTools  []string `json:"deny_tools,omitempty"`
}

type AgentJSON struct {
	Description  string          `json:"description,omitempty"`
	Tools        *AgentToolsJSON `json:"tools,omitempty"`
	Discovery    bool            `json:"discovery,omitempty" jsonschema_description:"Start with the discovery tools and load others on demand."`
	Subagents    []string        `json:"subagents,omitempty" jsonschema_description:"[\"agent.NAME\", ...], exposed as agent__NAME."`
	Spawn        bool            `json:"spawn,omitempty" jsonschema_description:"Opt in to spawn_agents and list_available_agents."`
	MaxDepth     *int            `json:"max_depth,omitempty"`
	Router       *RouterJSON     `json:"router,omitempty"`
	Model        string          `json:"model,omitempty" jsonschema_description:"\"model.NAME\"; default: defaults.model."`
	Instructions string          `json:"instructions,omitempty" jsonschema_description:"The system prompt; may be ${file(\"PATH\")}."`
	MaxTurns     int             `json:"max_turns,omitempty" jsonschema:"minimum=1" jsonschema_description:"Model calls before the run fails; default 20."`
}

type AgentToolsJSON struct {
	Use     []string          `json:"use,omitempty" jsonschema_description:"\"tool.X\", \"server.X\", \"bundle.X\", \"prompt.X\", \"resource.X\", \"runtime.X\" (output_read, agent__batch, agent__final_report, agent__task_status), tool names or globs."`
	Allowed []string          `json:"allowed,omitempty" jsonschema_description:"Names, aliases or globs: the whole list of what the agent offers, runtime tools included; omitted: everything in use."`
	Aliases map[string]string `json:"aliases,omitempty" jsonschema_description:"Alias name to tool name."`
}

type PromptJSON struct {
	Description string                  `json:"description,omitempty"`
	Argument    map[string]ArgumentJSON `json:"argument,omitempty" jsonschema_description:"Arguments, by name; the text uses them as {name}."`
	Template    string                  `json:"template,omitempty" jsonschema_description:"One user message with {argument} placeholders; or message blocks instead."`
	Message     []MessageJSON           `json:"message,omitempty" jsonschema_description:"The prompt's messages, in order; or template instead."`
}

type ArgumentJSON struct {
	Description string `json:"description,omitempty"`
	Required    bool   `json:"required,omitempty"`
}

type MessageJSON struct {
	Role string `json:"role" jsonschema:"required,enum=user,enum=assistant"`
	Text string `json:"text" jsonschema:"required" jsonschema_description:"With {argument} placeholders."`
}

type ResourceJSON struct {
	URI         string `json:"uri" jsonschema:"required" jsonschema_description:"A URI with a scheme, such as \"docs://style-guide\"."`
	Description string `json:"description,omitempty"`
	MIMEType    string `json:"mime_type,omitempty" jsonschema_description:"Default \"text/plain\"."`
	Text        string `json:"text" jsonschema:"required" jsonschema_description:"The content, or ${file(\"PATH\")}."`
}

type RouterJSON struct {
	Destinations []string `json:"destinations" jsonschema:"required" jsonschema_description:"[\"agent.NAME\", ...], exposed through router__handoff-to."`
}

type WorkflowJSON struct {
	Role map[string]RoleJSON `json:"role,omitempty"`
}

type RoleJSON struct {
	Step map[string]StepJSON `json:"step,omitempty"`
}

type StepJSON struct {
	Bundles []string `json:"bundles" jsonschema:"required" jsonschema_description:"[\"bundle.NAME\", ...]."`
}

// JSONSchema returns the JSON Schema (draft 2020-12) of a spec file in
// JSON syntax, for *.hcl.json files and editors.
func JSONSchema() ([]byte, error) {
	r := &jsonschema.Reflector{RequiredFromJSONSchemaTags: true}
	s := r.Reflect(&SpecFile{})
	s.ID = "https://toolgen.dev/schema/spec.json"
	s.Title = "toolgen spec"
	s.Description = "A toolgen spec file in HCL's JSON syntax (*.hcl.json)."
	b, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return nil, err
	}
	return append(b, '\n'), nil
}

type SkillJSON struct {
	Dir string `json:"dir,omitempty" jsonschema_description:"The skill's directory, relative to the spec, named as the skill; default \"skills/NAME\"."`
}
