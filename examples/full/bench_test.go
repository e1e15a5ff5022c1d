package full_test

import (
	"context"
	"encoding/json"
	"log/slog"
	"testing"

	"github.com/toolgen-dev/toolgen/examples/full/tools"
	"github.com/toolgen-dev/toolgen/generated/full"
	"github.com/toolgen-dev/toolgen/runtime"
)

// BenchmarkCall: one call per kind through a session of the generated
// maintainer agent (context budget lifted), against the Go function called directly (baseline).
//
//	go test -run '^$' -bench Call -benchmem ./examples/full/
func BenchmarkCall(b *testing.B) {
	e := setup(b)
	ctx := context.Background()
	b.Run("baseline_go_func", func(b *testing.B) {
		args := tools.CountArgs{Text: "one two three"}
		for b.Loop() {
			if _, err := tools.WordCount(ctx, args); err != nil {
				b.Fatal(err)
			}
		}
	})
	// the spec's context budget would end a long loop; lift it on a copy
	reg := *full.Registry
	reg.Defaults.ContextBudget = 0
	opts, _ := e.options(b)
	opts.Logger = slog.New(slog.DiscardHandler) // events cost what the host's handler costs
	s, err := runtime.Open(ctx, &reg, full.AgentMaintainer, opts)
	must(b, err)
	defer s.Close()
	for _, c := range []struct{ name, tool, args string }{
		{"go_tool", full.ToolWordCount, `{"text":"one two three"}`},
		{"alias_builtin_fs_read", "cat", `{"path":"workspace/notes.txt"}`},
		{"blocked", "everything__get-tiny-image", `{}`},
		{"mcp_stdio_cached", "everything__echo", `{"message":"bench"}`},
	} {
		b.Run(c.name, func(b *testing.B) {
			args := json.RawMessage(c.args)
			for b.Loop() {
				if r := s.Call(ctx, c.tool, args); r.OK == (c.name == "blocked") {
					b.Fatalf("%s: %+v", c.tool, r)
				}
			}
		})
	}
	// server-everything's cache = "5m" answers repeated calls; distinct
	// arguments go to the child process every time
	b.Run("mcp_stdio_uncached", func(b *testing.B) {
		n := 0
		for b.Loop() {
			n++
			args, _ := json.Marshal(map[string]int{"a": n, "b": 1})
			if r := s.Call(ctx, "everything__get-sum", args); !r.OK {
				b.Fatal(r.Error)
			}
		}
	})
}
