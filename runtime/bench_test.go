package runtime

import (
	"context"
	"encoding/json"
	"log/slog"
	"testing"
	"time"

	"github.com/toolgen-dev/toolgen/runtime/decl"
)

// benchOut is the tool body's result: no allocation in the tool itself, so
// that the benchmarks measure the pipeline.
var benchOut = json.RawMessage(`{"ok":true}`)

func benchTool(ctx context.Context, args json.RawMessage) (json.RawMessage, error) {
	return benchOut, nil
}

func benchSession(b *testing.B, queue string, timeout time.Duration) *Session {
	return benchSessionWith(b, decl.Tool{Name: "noop", Kind: decl.KindGo, Go: benchTool, Queue: queue, Timeout: timeout}, nil)
}

// benchSessionWith opens a session over one tool; getenv gives the
// environment of env() values (nil: none).
func benchSessionWith(b *testing.B, tool decl.Tool, getenv func(string) (string, bool)) *Session {
	reg := &Registry{
		Defaults: decl.Defaults{ResponseMaxBytes: 100000},
		Queues:   []decl.Queue{{Name: "q", Concurrent: 8}},
		Tools:    []decl.Tool{tool},
		Agents:   []decl.Agent{{Name: "a", Use: []decl.Use{{Kind: decl.UseTool, Name: tool.Name}}}},
	}
	if getenv != nil {
		reg.Servers = []decl.Server{{Name: "gh", Transport: "stdio", Command: "true",
			Env: []decl.KeyValue{{Key: "GITHUB_TOKEN", Value: decl.Value{{Env: "GITHUB_TOKEN"}}}}}}
	}
	s, err := Open(context.Background(), reg, "a", Options{Logger: slog.New(slog.DiscardHandler), Getenv: getenv})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { s.Close() })
	return s
}

// BenchmarkCallBaseline calls the GoFunc directly.
func BenchmarkCallBaseline(b *testing.B) {
	ctx := context.Background()
	args := json.RawMessage(`{}`)
	var fn decl.GoFunc = benchTool
	b.ReportAllocs()
	for b.Loop() {
		if _, err := fn(ctx, args); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkSessionCall is the dispatch overhead of an in-process Go tool:
// lookup, allow check, size cap, budget, latency, event check.
func BenchmarkSessionCall(b *testing.B) {
	s := benchSession(b, "", 0)
	ctx := context.Background()
	args := json.RawMessage(`{}`)
	b.ReportAllocs()
	for b.Loop() {
		if r := s.Call(ctx, "noop", args); !r.OK {
			b.Fatal(r.Error)
		}
	}
}

// BenchmarkSessionCallParallel is the same from every core at once.
func BenchmarkSessionCallParallel(b *testing.B) {
	s := benchSession(b, "", 0)
	args := json.RawMessage(`{}`)
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		ctx := context.Background()
		for pb.Next() {
			if r := s.Call(ctx, "noop", args); !r.OK {
				b.Fatal(r.Error)
			}
		}
	})
}

// BenchmarkSessionCallQueueTimeout adds a queue slot and a timeout (which
// runs the Go tool on its own goroutine so that a stuck tool cannot hang
// the caller).
func BenchmarkSessionCallQueueTimeout(b *testing.B) {
	s := benchSession(b, "q", time.Minute)
	ctx := context.Background()
	args := json.RawMessage(`{}`)
	b.ReportAllocs()
	for b.Loop() {
		if r := s.Call(ctx, "noop", args); !r.OK {
			b.Fatal(r.Error)
		}
	}
}

// BenchmarkSessionCallQueue adds only a queue slot.
func BenchmarkSessionCallQueue(b *testing.B) {
	s := benchSession(b, "q", 0)
	ctx := context.Background()
	args := json.RawMessage(`{}`)
	b.ReportAllocs()
	for b.Loop() {
		if r := s.Call(ctx, "noop", args); !r.OK {
			b.Fatal(r.Error)
		}
	}
}

// BenchmarkSessionCallSchema validates the arguments against a typical
// input schema (required fields, types, an enum) before the call.
func BenchmarkSessionCallSchema(b *testing.B) {
	s := benchSessionWith(b, decl.Tool{Name: "weather", Kind: decl.KindGo, Go: benchTool, InputSchema: json.RawMessage(
		`{"type":"object","properties":{"city":{"type":"string"},"days":{"type":"integer","minimum":1},"unit":{"type":"string","enum":["c","f"]}},"required":["city"]}`)}, nil)
	ctx := context.Background()
	args := json.RawMessage(`{"city":"Oslo","days":3,"unit":"c"}`)
	b.ReportAllocs()
	for b.Loop() {
		if r := s.Call(ctx, "weather", args); !r.OK {
			b.Fatal(r.Error)
		}
	}
}

// BenchmarkSessionCallSecrets scrubs the result: the registry declares an
// env() value, so every output is searched for it.
func BenchmarkSessionCallSecrets(b *testing.B) {
	s := benchSessionWith(b, decl.Tool{Name: "noop", Kind: decl.KindGo, Go: benchTool}, func(string) (string, bool) {
		return "ghp_0123456789abcdefghijklmnopqrstuvwxyz", true
	})
	ctx := context.Background()
	args := json.RawMessage(`{}`)
	b.ReportAllocs()
	for b.Loop() {
		if r := s.Call(ctx, "noop", args); !r.OK {
			b.Fatal(r.Error)
		}
	}
}

// BenchmarkArgCheck is the argument check alone, the part of the
// pipeline that the input schema adds: a schema that asks for an object
// only, a flat one (server-everything's echo: scalar properties, checked
// on the bytes), and the typical schema of BenchmarkSessionCallSchema.
func BenchmarkArgCheck(b *testing.B) {
	for _, c := range []struct{ name, schema, args string }{
		{"schema=object", ``, `{}`},
		{"schema=flat", `{"type":"object","properties":{"message":{"type":"string","description":"Message to echo"}},"required":["message"],"additionalProperties":false,"$schema":"http://json-schema.org/draft-07/schema#"}`,
			`{"message":"hello from servedbench"}`},
		{"schema=typical", `{"type":"object","properties":{"city":{"type":"string"},"days":{"type":"integer","minimum":1},"unit":{"type":"string","enum":["c","f"]}},"required":["city"]}`,
			`{"city":"Oslo","days":3,"unit":"c"}`},
	} {
		b.Run(c.name, func(b *testing.B) {
			s := benchSessionWith(b, decl.Tool{Name: "t", Kind: decl.KindGo, Go: benchTool, InputSchema: json.RawMessage(c.schema)}, nil)
			st := s.st.Load()
			e := st.surf.Load().entry("t")
			args := json.RawMessage(c.args)
			b.ReportAllocs()
			for b.Loop() {
				if err, _ := e.args.Check(e.info.Name, args); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkClockReads is the floor of any call that reports its latency:
// the two monotonic clock reads Session.Call makes.
func BenchmarkClockReads(b *testing.B) {
	var d time.Duration
	for b.Loop() {
		start := mono()
		d += mono() - start
	}
	_ = d
}
