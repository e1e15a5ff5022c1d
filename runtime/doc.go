// Package runtime is what a host program calls to run the agents toolgen
// generated: it resolves an agent's tools, owns the MCP connections, and
// runs every tool call through one pipeline that enforces the spec's
// policies.
//
// A Host owns what sessions share; a Session is one agent context:
//
//	Host ──────────────────────────────────────────────┐
//	 │ a Pool per Registry (tools, queues, lock drift)  │ Close stops the
//	 │ MCP connections (one per server, shared)         │ connections and
//	 ▼                                                  │ frees the pools
//	Session ⇄ agent context (surface, memory, spill) ───┘
//	 │  Tools · Find · ToolsForStep · Switch · Subscribe
//	 ▼
//	Call ─▶ allowed? ─▶ args valid? ─▶ cache ─▶ queue ─▶ timeout ─▶ provider
//	        ─▶ secrets scrubbed ─▶ size cap / spill ─▶ budget ─▶ Result
//
// Generated code fills in a decl.Registry and offers typed constructors
// (OpenX(ctx, opts)) that call Open; a program with one session uses Open
// alone, one with many opens them on one Host (Options.Host or Host.Open).
// The runtime's own tools (sub-agents, discovery, meta, output_read) live
// in runtime/internal/tools; the pipeline's parts in
// runtime/internal/pipeline.
package runtime
