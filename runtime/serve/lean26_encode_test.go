package serve

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolgen-dev/toolgen/runtime"
)

// appendCompleted writes a complete result exactly as the reflective path
// (typedResult through an encoder without HTML escaping) writes it, and
// leaves every other result to that path.
func TestAppendCompletedMatchesEncoder(t *testing.T) {
	impl := &mcp.Implementation{Name: "agent <x>", Version: "1"}
	text := func(s string) []mcp.Content { return []mcp.Content{&mcp.TextContent{Text: s}} }
	for _, res := range []*mcp.CallToolResult{
		{Content: text("hello")},
		{Content: text("<a & b> \u2028 \x01 \xff \"q\" \\ é"), Meta: mcp.Meta{"toolgen.dev/latency_ms": 1.5, mcp.MetaKeyServerInfo: impl}},
		{Content: append(text("one"), text("two")...), IsError: true, Meta: mcp.Meta{"k": "<v>"}},
		{Content: []mcp.Content{}, StructuredContent: map[string]any{"n": 1, "s": "<&>"}},
		{Content: text("")},
	} {
		want := encodeLikeSDK(t, completed(res))
		got, ok := appendCompleted([]byte("HEAD"), completed(res))
		if !ok {
			t.Errorf("%+v: not written by hand", res)
			continue
		}
		if !bytes.Equal(got, append([]byte("HEAD"), want...)) {
			t.Errorf("appendCompleted:\ngot  %s\nwant HEAD%s", got, want)
		}
	}
	for _, res := range []mcp.Result{
		inputRequired(mcp.InputRequestMap{"q": &mcp.ElicitParams{Message: "?"}}, "state"),
		completed(&mcp.CallToolResult{Content: []mcp.Content{&mcp.ImageContent{Data: []byte("x"), MIMEType: "image/png"}}}),
		completed(&mcp.GetPromptResult{}),
		&mcp.CallToolResult{Content: text("untyped")},
	} {
		if got, ok := appendCompleted([]byte("HEAD"), res); ok || string(got) != "HEAD" {
			t.Errorf("%T written by hand: %s", res, got)
		}
	}
}

func encodeLikeSDK(t *testing.T, res mcp.Result) []byte {
	t.Helper()
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(res); err != nil {
		t.Fatal(err)
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n"))
}

// appendCompletedPlain writes from a runtime.Result what the reflective
// path writes of toCallToolResult(r) with serverInfo (appendCompleted,
// itself pinned to the encoder above), byte for byte, and leaves rich
// results to it.
func TestAppendCompletedPlainMatches(t *testing.T) {
	r := rand.New(rand.NewPCG(26, 7))
	latencies := []time.Duration{0, 1, 999, time.Microsecond, 1234567 * time.Nanosecond, time.Hour, -time.Millisecond, 1<<63 - 1}
	for i := range 5000 {
		impl := &mcp.Implementation{Name: randomText(r), Version: "1"}
		if i%3 == 0 {
			impl.Title = randomText(r)
		}
		info, err := json.Marshal(impl)
		if err != nil {
			t.Fatal(err)
		}
		res := runtime.Result{OK: r.IntN(2) == 0, Latency: latencies[i%len(latencies)]}
		if r.IntN(3) > 0 {
			res.Latency = time.Duration(r.Int64N(int64(time.Minute)))
		}
		if res.OK || r.IntN(4) > 0 {
			res.Result = randomText(r)
		}
		if !res.OK && r.IntN(4) > 0 {
			res.Error = randomText(r)
		}
		if r.IntN(3) > 0 {
			res.Kind = runtime.ToolKind(randomText(r))
		}
		if r.IntN(2) == 0 {
			res.Namespace = randomText(r)
		}
		if r.IntN(10) == 0 { // rich, but an error the runtime failed: plain
			res.Rich = &runtime.Rich{Content: []mcp.Content{&mcp.TextContent{Text: "x"}}}
			res.OK = false
		}
		old := toCallToolResult(res)
		old.Meta[mcp.MetaKeyServerInfo] = impl
		want, ok := appendCompleted([]byte("HEAD"), completed(old))
		if !ok {
			t.Fatalf("%+v: the old path declined it", res)
		}
		got, ok := appendCompletedPlain([]byte("HEAD"), res, info)
		if !ok || !bytes.Equal(got, want) {
			t.Fatalf("%+v:\ngot  %s\nwant %s", res, got, want)
		}
	}
	rich := runtime.Result{OK: true, Rich: &runtime.Rich{Content: []mcp.Content{&mcp.TextContent{Text: "x"}}}}
	if got, ok := appendCompletedPlain([]byte("HEAD"), rich, []byte(`{}`)); ok || string(got) != "HEAD" {
		t.Errorf("a rich result written by hand: %s", got)
	}
}
