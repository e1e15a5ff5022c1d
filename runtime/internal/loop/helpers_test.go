package loop_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/toolgen-dev/toolgen/internal/model"
	"github.com/toolgen-dev/toolgen/internal/model/modeltest"
	"github.com/toolgen-dev/toolgen/runtime"
	"github.com/toolgen-dev/toolgen/runtime/decl"
	"github.com/toolgen-dev/toolgen/runtime/internal/loop"
	"go.uber.org/goleak"
)

// No run may leave a goroutine behind: tool calls, model streams and
// sessions all end by the time a test does.
func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

const testKey = "sk-test-SECRET-0123456789"

var providers = []string{"openai", "anthropic"}

// eachProvider runs f for both providers, plain and streamed.
func eachProvider(t *testing.T, f func(t *testing.T, provider string, stream bool)) {
	for _, p := range providers {
		for _, stream := range []bool{false, true} {
			name := p
			if stream {
				name += "/stream"
			}
			t.Run(name, func(t *testing.T) {
				t.Parallel()
				f(t, p, stream)
			})
		}
	}
}

// other is the provider that is not p: handoffs and sub-agents cross over.
func other(p string) string {
	if p == "openai" {
		return "anthropic"
	}
	return "openai"
}

// newModel points the real SDK of provider at srv.
func newModel(t *testing.T, provider string, srv *modeltest.Server) model.Model {
	t.Helper()
	cfg := model.Config{Label: provider + "-model", Provider: provider, Name: "test-model", APIKey: testKey}
	if provider == "openai" {
		cfg.BaseURL = srv.OpenAIBaseURL()
	} else {
		cfg.BaseURL = srv.AnthropicBaseURL()
	}
	m, err := model.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func ctxFor(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// fixture is a real runtime session over a hand-built registry: a builtin
// fs_read over a temp dir, Go tools, agents with sub-agents and a router.
type fixture struct {
	dir     string
	reg     *runtime.Registry
	tm      *team
	log     *events
	barrier *barrier
	// hung is signalled when the "hang" tool starts; hangSawCancel when
	// it saw its context end.
	hung, hangSawCancel chan struct{}
}

const notes = "hello from the notes\n"

// longName is a tool name over the 64 bytes the providers accept.
var longName = "a_tool_whose_name_is_longer_than_any_model_provider_accepts_" + strings.Repeat("x", 10)

func okTool(context.Context, json.RawMessage) (json.RawMessage, error) {
	return json.RawMessage(`"ok"`), nil
}

func newFixture(t *testing.T) *fixture {
	f := &fixture{dir: t.TempDir(), log: &events{}, barrier: &barrier{all: make(chan struct{})},
		hung: make(chan struct{}, 8), hangSawCancel: make(chan struct{}, 8)}
	if err := os.WriteFile(filepath.Join(f.dir, "notes.txt"), []byte(notes), 0o600); err != nil {
		t.Fatal(err)
	}
	object := json.RawMessage(`{"type":"object","properties":{}}`)
	f.reg = &runtime.Registry{
		Separator: "__",
		Defaults:  decl.Defaults{ToolTimeout: 30 * time.Second, ResponseMaxBytes: 100000, MaxDepth: 2},
		Policies:  []decl.Policy{{Name: "workspace", Builtin: "fs_read", AllowedPaths: []string{"."}}},
		Tools: []decl.Tool{
			{Name: "barrier", Kind: decl.KindGo, Description: "Wait for the others.", InputSchema: object, Go: f.barrier.run},
			{Name: "hang", Kind: decl.KindGo, Description: "Never ends by itself.", InputSchema: object,
				Go: func(ctx context.Context, _ json.RawMessage) (json.RawMessage, error) {
					f.hung <- struct{}{}
					<-ctx.Done()
					f.hangSawCancel <- struct{}{}
					return nil, ctx.Err()
				}},
			{Name: longName, Kind: decl.KindGo, Description: "A name no provider takes.", InputSchema: object, Go: okTool},
			{Name: "odd", Kind: decl.KindGo, Description: "A schema no provider takes.", InputSchema: json.RawMessage(`{"type":"array"}`), Go: okTool},
			{Name: "read_file", Kind: decl.KindBuiltin, Policy: "workspace", Description: "Read a text file."},
			{Name: "secret", Kind: decl.KindGo, Description: "Classified.", InputSchema: object,
				Go: func(context.Context, json.RawMessage) (json.RawMessage, error) {
					return json.RawMessage(`"classified"`), nil
				}},
		},
		Agents: []decl.Agent{
			{Name: "finder", Discovery: true, Use: use("read_file")},
			{Name: "odd", Use: use("odd", longName, "read_file")},
			{Name: "lead", Use: append(use("read_file", "barrier", "hang"), decl.Use{Kind: decl.UseRuntime, Name: decl.ToolFinalReport}), Subagents: []string{"researcher", "support"}, Spawn: true, Router: []string{"support"}},
			{Name: "researcher", Use: use("read_file")},
			{Name: "support", Use: use("read_file")},
		},
	}
	f.tm = &team{
		models: map[string]model.Model{}, labels: map[string]string{},
		instructions: map[string]string{
			"lead":       "You plan and delegate.",
			"researcher": "You read files and report what they say.",
			"support":    "You help customers.",
			"finder":     "You find tools before using them.",
		},
		opts: loop.Options{Logger: f.log.logger()},
	}
	return f
}

func use(names ...string) []decl.Use {
	out := make([]decl.Use, len(names))
	for i, n := range names {
		out[i] = decl.Use{Kind: decl.UseTool, Name: n}
	}
	return out
}

// on gives agent a model served by srv.
func (f *fixture) on(t *testing.T, agent, provider string, srv *modeltest.Server) {
	f.tm.models[agent] = newModel(t, provider, srv)
	f.tm.labels[agent] = provider + "-model"
}

// open opens a session on agent whose sub-agents run on the fixture's team.
func (f *fixture) open(t *testing.T, agent string) (*runtime.Session, *sessionAgent) {
	t.Helper()
	s, err := runtime.Open(context.Background(), f.reg, agent, runtime.Options{Logger: f.log.logger(), Workdir: f.dir, Runner: f.tm})
	if err != nil {
		t.Fatal(err)
	}
	a := f.tm.agent(s)
	t.Cleanup(func() {
		a.Close()
		s.Close()
	})
	return s, a
}

// run runs agent on prompt with the fixture's logger.
func (f *fixture) run(ctx context.Context, a loop.Agent, prompt string, opts loop.Options) (*loop.Result, error) {
	opts.Logger = f.log.logger()
	return loop.Run(ctx, a, prompt, opts)
}

// barrier is a tool whose calls all wait until n of them arrived: calls
// run one after the other never get past it.
type barrier struct {
	n       atomic.Int32
	arrived atomic.Int32
	all     chan struct{}
}

func (b *barrier) run(ctx context.Context, _ json.RawMessage) (json.RawMessage, error) {
	if b.arrived.Add(1) == b.n.Load() {
		close(b.all)
	}
	select {
	case <-b.all:
		return json.RawMessage(fmt.Sprintf(`"all %d arrived"`, b.n.Load())), nil
	case <-ctx.Done():
		return nil, fmt.Errorf("only %d of %d calls arrived: %w", b.arrived.Load(), b.n.Load(), ctx.Err())
	}
}

// events records slog records: by name for assertions, and as text to
// search for what must never be logged.
type events struct {
	mu   sync.Mutex
	recs []event
	text bytes.Buffer
}

type event struct {
	Name  string
	Attrs map[string]string
}

func (e *events) logger() *slog.Logger { return slog.New(eventHandler{e}) }

type eventHandler struct{ e *events }

func (h eventHandler) Enabled(context.Context, slog.Level) bool { return true }
func (h eventHandler) Handle(_ context.Context, r slog.Record) error {
	ev := event{Name: r.Message, Attrs: map[string]string{}}
	r.Attrs(func(a slog.Attr) bool { ev.Attrs[a.Key] = a.Value.String(); return true })
	h.e.mu.Lock()
	defer h.e.mu.Unlock()
	h.e.recs = append(h.e.recs, ev)
	fmt.Fprintf(&h.e.text, "%s %v\n", ev.Name, ev.Attrs)
	return nil
}
func (h eventHandler) WithAttrs([]slog.Attr) slog.Handler { return h }
func (h eventHandler) WithGroup(string) slog.Handler      { return h }

// named returns the events with a name whose attributes include attrs
// (key, value pairs).
func (e *events) named(name string, attrs ...string) []event {
	e.mu.Lock()
	defer e.mu.Unlock()
	var out []event
next:
	for _, r := range e.recs {
		if r.Name != name {
			continue
		}
		for i := 0; i+1 < len(attrs); i += 2 {
			if r.Attrs[attrs[i]] != attrs[i+1] {
				continue next
			}
		}
		out = append(out, r)
	}
	return out
}

func (e *events) String() string {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.text.String()
}

func (e *events) require(t *testing.T, n int, name string, attrs ...string) []event {
	t.Helper()
	got := e.named(name, attrs...)
	if len(got) != n {
		t.Errorf("%d %s events with %v, want %d; events:\n%s", len(got), name, attrs, n, e)
	}
	return got
}

// toolNames lists the tools a request declared.
func toolNames(r *modeltest.Request) []string {
	out := make([]string, len(r.Tools))
	for i, t := range r.Tools {
		out[i] = t.Name
	}
	return out
}

func has(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// results are the tool results of a request's last message(s), in order.
func results(r *modeltest.Request) []modeltest.Result {
	var out []modeltest.Result
	for _, m := range r.Messages {
		out = append(out, m.Results...)
	}
	return out
}

// lastUserText is the text of the request's last user message.
func lastUserText(r *modeltest.Request) string {
	for i := len(r.Messages) - 1; i >= 0; i-- {
		if m := r.Messages[i]; m.Role == "user" && m.Text != "" {
			return m.Text
		}
	}
	return ""
}
