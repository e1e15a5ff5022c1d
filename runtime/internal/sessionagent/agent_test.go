package sessionagent_test

import (
	"context"
	"encoding/json"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/toolgen-dev/toolgen/runtime"
	"github.com/toolgen-dev/toolgen/runtime/decl"
	"github.com/toolgen-dev/toolgen/runtime/internal/sessionagent"
)

// big is over the registry's response_max_bytes: its result is spilled.
var big = strings.Repeat("é line of the report\n", 200)

func registry() *runtime.Registry {
	report := func(context.Context, json.RawMessage) (json.RawMessage, error) { return json.Marshal(big) }
	quote := func(context.Context, json.RawMessage) (json.RawMessage, error) { return json.Marshal("quoted") }
	return &runtime.Registry{
		Package: "demo", Separator: "__",
		Defaults: decl.Defaults{ToolTimeout: time.Minute, ResponseMaxBytes: 1000, StartupTimeout: time.Minute, InitConcurrency: 2, MaxDepth: 1},
		Tools: []decl.Tool{
			{Name: "build_report", Description: "Summarise the last build.", Kind: decl.KindGo, Go: report, InputSchema: json.RawMessage(`{"type":"object"}`)},
			{Name: "quote", Description: "Quote a passage.", Kind: decl.KindGo, Go: quote, InputSchema: json.RawMessage(`{"type":"object"}`)},
		},
		Agents: []decl.Agent{
			{Name: "coder", Description: "Builds.", Use: []decl.Use{{Kind: decl.UseTool, Name: "build_report"}, {Kind: decl.UseRuntime, Name: decl.ToolOutputRead}}},
			{Name: "reviewer", Description: "Quotes.", Use: []decl.Use{{Kind: decl.UseTool, Name: "quote"}}},
		},
	}
}

func open(t *testing.T, reg *runtime.Registry, agent string) *runtime.Session {
	t.Helper()
	s, err := runtime.Open(context.Background(), reg, agent, runtime.Options{Logger: slog.New(slog.DiscardHandler), SpillDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func TestStatusReasonsFromExplain(t *testing.T) {
	reg := registry()
	a := sessionagent.New(reg, open(t, reg, "coder"), nil)
	st := a.Status()
	if st.Agent != "coder" || len(st.Agents) != 2 || st.Agents[1].Name != "reviewer" || st.Agents[1].Description != "Quotes." {
		t.Fatalf("status = %+v", st)
	}
	x, err := runtime.Explain(reg, runtime.ExplainOptions{Agent: "coder"})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{}
	for _, tl := range x.Tools {
		want[tl.Name] = strings.Join(tl.Reasons, "; ")
	}
	found := false
	for _, tl := range st.Tools {
		if tl.Name == "build_report" {
			found = true
			if tl.Reason == "" || tl.Reason != want["build_report"] {
				t.Errorf("reason %q, explain says %q", tl.Reason, want["build_report"])
			}
		}
	}
	if !found {
		t.Fatalf("build_report not in %+v", st.Tools)
	}
}

// Spilled outputs are listed and paged from the session itself, across
// the main session and its followers; a switch starts with none, and
// switches every follower.
func TestOutputsAndSwitchFollowers(t *testing.T) {
	reg := registry()
	main, client := open(t, reg, "coder"), open(t, reg, "coder")
	a := sessionagent.New(reg, main, func() []sessionagent.Session { return []sessionagent.Session{client} })
	if r := client.Call(context.Background(), "build_report", nil); !r.OK || !strings.Contains(r.Result, "tool_output") {
		t.Fatalf("call = %+v", r)
	}
	outs := a.Outputs()
	if len(outs) != 1 || outs[0].Bytes != len(big) {
		t.Fatalf("outputs = %+v", outs)
	}
	var got strings.Builder
	for off := 0; ; {
		p, err := a.ReadOutput(outs[0].Handle, off, 7) // 7 bytes: splits é unless cut at a rune
		if err != nil {
			t.Fatal(err)
		}
		got.WriteString(p.Content)
		if p.EOF {
			break
		}
		off = p.NextOffset
	}
	if got.String() != big {
		t.Fatalf("paged output differs from the result (%d bytes, want %d)", got.Len(), len(big))
	}
	if _, err := a.ReadOutput("nope/output-1.txt", 0, 10); err == nil {
		t.Fatal("reading an unknown handle succeeded")
	}
	if err := a.Switch(context.Background(), "reviewer"); err != nil {
		t.Fatal(err)
	}
	if main.Agent() != "reviewer" || client.Agent() != "reviewer" || a.Status().Agent != "reviewer" {
		t.Fatalf("after switch: main %s, client %s", main.Agent(), client.Agent())
	}
	if outs := a.Outputs(); len(outs) != 0 {
		t.Fatalf("outputs after a switch = %+v", outs)
	}
	if err := a.Switch(context.Background(), "nobody"); err == nil || !strings.Contains(err.Error(), "unknown agent") {
		t.Fatalf("switch to an unknown agent: %v", err)
	}
}

// recorder keeps the names of the events logged to it.
type recorder struct {
	mu    sync.Mutex
	names []string
}

func (r *recorder) Enabled(context.Context, slog.Level) bool { return true }
func (r *recorder) Handle(_ context.Context, rec slog.Record) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.names = append(r.names, rec.Message)
	return nil
}
func (r *recorder) WithAttrs([]slog.Attr) slog.Handler { return r }
func (r *recorder) WithGroup(string) slog.Handler      { return r }

func (r *recorder) has(name string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Contains(r.names, name)
}

// A call still running when the page switches gets the 5 s grace, then
// the old context is torn down by force (agent.switch_timeout): the call
// is cancelled and its caller gets an error, and the switch completes.
func TestSwitchForcesTeardownOfAHangingCall(t *testing.T) {
	reg := registry()
	started := make(chan struct{})
	reg.Tools = append(reg.Tools, decl.Tool{Name: "wait", Description: "Wait until cancelled.", Kind: decl.KindGo,
		InputSchema: json.RawMessage(`{"type":"object"}`), Go: func(ctx context.Context, _ json.RawMessage) (json.RawMessage, error) {
			close(started)
			<-ctx.Done()
			return nil, ctx.Err()
		}})
	reg.Agents[0].Use = append(reg.Agents[0].Use, decl.Use{Kind: decl.UseTool, Name: "wait"})
	rec := &recorder{}
	s, err := runtime.Open(context.Background(), reg, "coder", runtime.Options{Logger: slog.New(rec), SpillDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	a := sessionagent.New(reg, s, nil)
	done := make(chan runtime.Result)
	go func() { done <- s.Call(context.Background(), "wait", nil) }()
	<-started
	if err := a.Switch(context.Background(), "reviewer"); err != nil {
		t.Fatal(err)
	}
	r := <-done
	if r.OK || !strings.Contains(r.Error, "torn down") {
		t.Fatalf("the hanging call ended with %+v, want the teardown's error", r)
	}
	if !rec.has(runtime.EventAgentSwitchTimeout) || a.Status().Agent != "reviewer" {
		t.Fatalf("events %v, agent %s: want agent.switch_timeout and reviewer", rec.names, a.Status().Agent)
	}
}
