package runtime_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"strings"

	"github.com/toolgen-dev/toolgen/runtime"
	"github.com/toolgen-dev/toolgen/runtime/decl"
)

// A registry with one Go tool, as generated code would fill it in, and a
// session that calls it. A call outside the agent's policy is an error
// result, not a Go error.
func Example() {
	upper := func(_ context.Context, args json.RawMessage) (json.RawMessage, error) {
		var in struct{ Text string }
		if err := json.Unmarshal(args, &in); err != nil {
			return nil, err
		}
		return json.Marshal(strings.ToUpper(in.Text))
	}
	reg := &runtime.Registry{
		Package: "example", Separator: "__",
		Tools: []decl.Tool{{Name: "upper", Description: "Upper-case a text.", Kind: decl.KindGo, Go: upper,
			InputSchema: json.RawMessage(`{"type":"object","properties":{"text":{"type":"string"}},"required":["text"]}`)}},
		Agents: []decl.Agent{{Name: "writer", Use: []decl.Use{{Kind: decl.UseTool, Name: "upper"}}}},
	}
	ctx := context.Background()
	h := runtime.NewHost(nil)
	defer h.Close()
	s, err := h.Open(ctx, reg, "writer", runtime.Options{Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer s.Close()

	r := s.Call(ctx, "upper", json.RawMessage(`{"text":"hello"}`))
	fmt.Println(r.OK, r.Result)
	r = s.Call(ctx, "shell", json.RawMessage(`{}`))
	fmt.Println(r.OK, r.Error)
	// Output:
	// true HELLO
	// false tool "shell" not found. Use tool_find or the tools list to see the tools you can call.
}
