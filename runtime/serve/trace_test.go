package serve

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/toolgen-dev/toolgen/runtime"
	"github.com/toolgen-dev/toolgen/runtime/decl"
)

// A host that sends traceparent in a tools/call's _meta gets the tool
// call's span in its trace, under its own span.
func TestHostTraceContextContinues(t *testing.T) {
	noop := func(context.Context, json.RawMessage) (json.RawMessage, error) { return json.Marshal("ok") }
	reg := &runtime.Registry{
		Package: "servetest", Separator: "__",
		Tools:  []decl.Tool{{Name: "noop", Kind: decl.KindGo, Go: noop, InputSchema: json.RawMessage(`{"type":"object"}`)}},
		Agents: []decl.Agent{{Name: "a", Use: []decl.Use{{Kind: decl.UseTool, Name: "noop"}}}},
	}
	spans := tracetest.NewInMemoryExporter()
	sess, err := runtime.Open(context.Background(), reg, "a", runtime.Options{
		TracerProvider: sdktrace.NewTracerProvider(sdktrace.WithSyncer(spans))})
	if err != nil {
		t.Fatal(err)
	}
	defer sess.Close()
	s := New(sess, Options{})
	defer s.Close()
	cs, _ := client(t, overHTTP(startHTTP(t, s)))
	const traceID, parent = "4bf92f3577b34da6a3ce929d0e0e4736", "00f067aa0ba902b7"
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "noop", Arguments: map[string]any{},
		Meta: mcp.Meta{"traceparent": "00-" + traceID + "-" + parent + "-01"}})
	if err != nil || res.IsError {
		t.Fatalf("noop: %v %+v", err, res)
	}
	got := spans.GetSpans()
	if len(got) != 1 || got[0].Name != "execute_tool noop" {
		t.Fatalf("spans %+v, want execute_tool noop", got)
	}
	if got[0].SpanContext.TraceID().String() != traceID || got[0].Parent.SpanID().String() != parent || !got[0].Parent.IsRemote() {
		t.Fatalf("span in trace %s under %s, want trace %s under the host's %s", got[0].SpanContext.TraceID(), got[0].Parent.SpanID(), traceID, parent)
	}
}
