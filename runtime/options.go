package runtime

import (
	"context"
	"log/slog"
	"net/http"
	"os"
	"sync"
	"time"

	"github.com/toolgen-dev/toolgen/runtime/internal/tools"
	"github.com/toolgen-dev/toolgen/runtime/store"
)

// Options configure a Session. The zero value is usable.
type Options struct {
	Host       *Host                       // shares pools, queues and connections; nil: a Host of the session's own
	Logger     *slog.Logger                // events; nil: discarded (an agent binary logs to stderr)
	Getenv     func(string) (string, bool) // default os.LookupEnv
	Workdir    string                      // base for policy paths; default "."
	SpillDir   string                      // spilled outputs; default a temp dir per session
	Runner     Runner                      // runs sub-agents; nil: the built-in loop on the spec's models (runner.go)
	Memory     Memory                      // the host's store, keys per agent (MemoryKey); default in-memory per agent context
	Connector  Connector                   // default: the Host's MCP connections
	HTTPClient *http.Client                // REST tools; nil: runtime/internal/rest's default
	Depth      int                         // sub-agent depth; 0 at top level

	// MeterProvider (an OpenTelemetry metric.MeterProvider) and
	// TracerProvider (a trace.TracerProvider), when set, record the
	// pipeline's metrics and a span per tool call. They need
	// runtime/telemetry linked (toolgen { telemetry = true }, or a blank
	// import); the runtime itself holds no OpenTelemetry, so they are any.
	// Both nil: nothing is recorded, at the cost of a nil check per call.
	MeterProvider  any
	TracerProvider any

	// Store, when set, is what the replicas of an agent share (serve
	// --store): spilled outputs live there, and context budgets and rate
	// limits are counted in it per caller (WithCallerID) rather than per
	// session. nil: everything stays in this process, as it always did.
	Store store.Store
	// RateLimit caps each caller's tool calls (serve --rate-limit).
	RateLimit RateLimit
	// BudgetWindow is how long a caller's context budget counts with a
	// Store before it starts again; default DefaultBudgetWindow.
	BudgetWindow time.Duration

	// Routes overrides Registry.Route for some step addresses
	// ("WF/ROLE/STEP" → bundle names); an empty list denies the step.
	Routes map[string][]string

	// depthLimit is the max_depth in force above a sub-agent's session
	// (set by the runtime when it opens one; 0 at the top).
	depthLimit int
	// models are the registry's models, shared by a session and its
	// sub-agents' sessions (made by Open at the top).
	models *models
}

// Runner runs a sub-agent: an LLM loop over the child session's tools.
// The child is closed by the runtime after Run returns. Without one the
// runtime runs the child on its own model (Session.Run).
type Runner interface {
	Run(ctx context.Context, child *Session, prompt string) (string, error)
}

// Memory is the per-session key/value store of an agent context.
type Memory interface {
	Get(key string) (string, bool)
	Set(key, value string)
}

// Memory keys the internal tools write.
const (
	MemoryFinalReport = tools.MemoryFinalReport
	MemoryTaskStatus  = tools.MemoryTaskStatus
)

// MemoryKey is where an agent's key lives in a host's Options.Memory: each
// agent of a session has keys of its own, so after a switch the host never
// reads the last agent's report as the new one's. A host reads agent A's
// final report with mem.Get(runtime.MemoryKey("A", runtime.MemoryFinalReport)).
// A sub-agent's session has a memory of its own (never the host's).
func MemoryKey(agent, key string) string { return agent + "/" + key }

// agentMemory is one agent's view of the host's Memory.
type agentMemory struct {
	m     Memory
	agent string
}

func (a agentMemory) Get(key string) (string, bool) { return a.m.Get(MemoryKey(a.agent, key)) }
func (a agentMemory) Set(key, value string)         { a.m.Set(MemoryKey(a.agent, key), value) }

func (o Options) withDefaults() Options {
	if o.Logger == nil {
		o.Logger = discard // a library logs only where it is told to, as go-sdk does
	}
	if o.Getenv == nil {
		o.Getenv = os.LookupEnv
	}
	if o.Workdir == "" {
		o.Workdir = "."
	}
	return o
}

// discard is the logger of a session or Host given none.
var discard = slog.New(slog.DiscardHandler)

// memStore is the default Memory: a map behind a mutex.
type memStore struct {
	mu sync.Mutex
	m  map[string]string
}

func newMemStore() *memStore { return &memStore{m: map[string]string{}} }

func (m *memStore) Get(key string) (string, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	v, ok := m.m[key]
	return v, ok
}

func (m *memStore) Set(key, value string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.m[key] = value
}
