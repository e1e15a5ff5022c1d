package serve

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
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
