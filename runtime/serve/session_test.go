package serve

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/toolgen-dev/toolgen/runtime"
	"github.com/toolgen-dev/toolgen/runtime/decl"
)

// A real runtime session behind the server: a discovery agent over HTTP
// loads a Go tool with tool_load, gets tools/list_changed, and calls it;
// a tool outside its policy stays refused.
func TestRuntimeSession(t *testing.T) {
	upper := func(_ context.Context, args json.RawMessage) (json.RawMessage, error) {
		var a struct{ Text string }
		if err := json.Unmarshal(args, &a); err != nil {
			return nil, err
		}
		return json.Marshal(strings.ToUpper(a.Text))
	}
	reg := &runtime.Registry{
		Package:   "servetest",
		Separator: "__",
		Tools: []decl.Tool{
			{Name: "upper", Description: "Upper-case a text.", Kind: decl.KindGo, Go: upper,
				InputSchema: json.RawMessage(`{"type":"object","properties":{"text":{"type":"string"}},"required":["text"]}`)},
			{Name: "forbidden", Description: "Never allowed.", Kind: decl.KindGo, Go: upper,
				InputSchema: json.RawMessage(`{"type":"object"}`)},
		},
		Agents: []decl.Agent{{
			Name:      "seeker",
			Use:       []decl.Use{{Kind: decl.UseTool, Name: "upper"}, {Kind: decl.UseTool, Name: "forbidden"}},
			Allowed:   []string{"upper", "tool_*"}, // allowed is the whole list: the discovery tools too
			Discovery: true,
		}, {
			Name: "shouter",
			Use:  []decl.Use{{Kind: decl.UseTool, Name: "upper"}},
		}},
	}
	sess, err := runtime.Open(context.Background(), reg, "seeker", runtime.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer sess.Close()
	s := New(sess, Options{})
	defer s.Close()
	cs, changed := client(t, overHTTP(startHTTP(t, s)))

	tools := listNames(t, cs)
	if tools["tool_load"] == nil || tools["upper"] != nil {
		t.Fatalf("initial surface = %v, want discovery tools without upper", tools)
	}
	if res := call(t, cs, "upper", map[string]any{"text": "x"}); !res.IsError {
		t.Errorf("upper before tool_load succeeded: %q", text(t, res))
	}
	if res := call(t, cs, "tool_load", map[string]any{"names": []string{"upper"}}); res.IsError {
		t.Fatalf("tool_load: %q", text(t, res))
	}
	waitChanged(t, changed)
	if listNames(t, cs)["upper"] == nil {
		t.Fatal("upper not listed after tool_load")
	}
	if res := call(t, cs, "upper", map[string]any{"text": "loud"}); res.IsError || !strings.Contains(text(t, res), "LOUD") {
		t.Errorf("upper = %v %q", res.IsError, text(t, res))
	}
	for _, name := range []string{"forbidden", "nonexistent"} {
		res := call(t, cs, name, map[string]any{})
		if !res.IsError {
			t.Errorf("%s: succeeded, want an error result", name)
		}
	}
	if res := call(t, cs, "tool_load", map[string]any{"names": []string{"forbidden"}}); !res.IsError {
		t.Errorf("tool_load forbidden succeeded: %q", text(t, res))
	}

	// Switch to another agent: the client is told, and sees its surface.
	if err := sess.Switch(context.Background(), "shouter"); err != nil {
		t.Fatal(err)
	}
	waitChanged(t, changed)
	tools = listNames(t, cs)
	if tools["upper"] == nil || tools["tool_load"] != nil {
		t.Errorf("after Switch to shouter: tools = %v, want upper without discovery tools", tools)
	}
}
