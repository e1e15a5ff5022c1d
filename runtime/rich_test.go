package runtime

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolgen-dev/toolgen/runtime/decl"
	"github.com/toolgen-dev/toolgen/runtime/internal/pipeline"
)

const richSecret = "s3cr3t-media-token"

// richFixture is an agent over one server, "media", whose tools answer
// with images, resources and structured content; the server's env holds
// richSecret, and it caches results for a minute.
func richFixture(t *testing.T, maxBytes int, calls *atomic.Int32) *Session {
	t.Helper()
	srv := mcp.NewServer(&mcp.Implementation{Name: "media", Version: "1"}, nil)
	png := []byte("\x89PNG\r\n\x1a\nnot really a picture")
	add := func(name string, res func() *mcp.CallToolResult) {
		srv.AddTool(&mcp.Tool{Name: name, InputSchema: json.RawMessage(`{"type":"object"}`)},
			func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				calls.Add(1)
				return res(), nil
			})
	}
	add("shot", func() *mcp.CallToolResult {
		return &mcp.CallToolResult{
			Content: []mcp.Content{
				&mcp.TextContent{Text: "token is " + richSecret},
				&mcp.ImageContent{Data: png, MIMEType: "image/png"},
				&mcp.ImageContent{Data: []byte("pixels " + richSecret), MIMEType: "image/png"},
				&mcp.ResourceLink{URI: "file:///shot.png", Name: "shot"},
				&mcp.EmbeddedResource{Resource: &mcp.ResourceContents{URI: "mem://notes", MIMEType: "text/plain", Text: "key=" + richSecret}},
			},
			StructuredContent: map[string]any{"token": richSecret, "w": 2},
			Meta:              mcp.Meta{"media/frame": 7},
		}
	})
	add("huge", func() *mcp.CallToolResult {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.ImageContent{Data: bytes.Repeat([]byte{0xff}, 3000), MIMEType: "image/png"}}}
	})
	add("broken", func() *mcp.CallToolResult {
		return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{
			&mcp.TextContent{Text: "render failed"}, &mcp.ImageContent{Data: png, MIMEType: "image/png"}}}
	})
	conn := newMemConnector()
	conn.add("media", srv)
	reg := &Registry{
		Package: "richtest", Separator: "__",
		Defaults: decl.Defaults{ToolTimeout: 30 * time.Second, ResponseMaxBytes: maxBytes, StartupTimeout: 10 * time.Second, MaxDepth: 2, InitConcurrency: 4},
		Servers: []decl.Server{{Name: "media", Transport: "stdio", Command: "media", Trusted: true, Cache: time.Minute,
			Env: []decl.KeyValue{{Key: "MEDIA_TOKEN", Value: decl.Value{{Env: "MEDIA_TOKEN"}}}}}},
		Agents: []decl.Agent{{Name: "a", Use: []decl.Use{{Kind: decl.UseServer, Name: "media"}, {Kind: decl.UseRuntime, Name: decl.ToolOutputRead}}}},
	}
	return open(t, reg, "a", Options{Connector: conn, Getenv: func(k string) (string, bool) {
		return richSecret, k == "MEDIA_TOKEN"
	}})
}

// Every block of a server's result reaches the caller, secrets scrubbed
// from each: text, resource text, structured content; an image that holds
// a secret is withheld, the others pass unchanged. The cache keeps the
// whole result.
func TestRichResultPassesWhole(t *testing.T) {
	var calls atomic.Int32
	s := richFixture(t, 100000, &calls)
	for i := range 2 {
		r := call(t, s, "media__shot", `{}`)
		mustOK(t, r)
		if r.Rich == nil {
			t.Fatalf("call %d: no rich result; text %q", i, r.Result)
		}
		all, _ := json.Marshal(r)
		if strings.Contains(string(all), richSecret) {
			t.Fatalf("call %d: the secret got through: %s", i, all)
		}
		c := r.Rich.Content
		if len(c) != 5 {
			t.Fatalf("call %d: %d blocks, want 5: %s", i, len(c), all)
		}
		if img, ok := c[1].(*mcp.ImageContent); !ok || !strings.HasPrefix(string(img.Data), "\x89PNG") || img.MIMEType != "image/png" {
			t.Errorf("block 1 = %#v, want the image unchanged", c[1])
		}
		if txt, ok := c[2].(*mcp.TextContent); !ok || !strings.Contains(txt.Text, "withheld") {
			t.Errorf("block 2 = %#v, want the image with the secret withheld", c[2])
		}
		if l, ok := c[3].(*mcp.ResourceLink); !ok || l.URI != "file:///shot.png" {
			t.Errorf("block 3 = %#v, want the resource link", c[3])
		}
		if e, ok := c[4].(*mcp.EmbeddedResource); !ok || e.Resource.URI != "mem://notes" || !strings.HasPrefix(e.Resource.Text, "key=") {
			t.Errorf("block 4 = %#v, want the embedded resource, scrubbed", c[4])
		}
		var st map[string]any
		if err := json.Unmarshal(r.Rich.Structured, &st); err != nil || st["w"] != 2.0 {
			t.Errorf("structured = %s (%v)", r.Rich.Structured, err)
		}
		if r.Rich.Meta["media/frame"] != 7.0 {
			t.Errorf("_meta = %v", r.Rich.Meta)
		}
	}
	if n := calls.Load(); n != 1 {
		t.Errorf("the server ran %d times; the second call should come from the cache", n)
	}
}

// An image over response_max_bytes spills like text: the caller gets a
// handle, and output_read pages through the result with the image in it.
func TestLargeImageSpills(t *testing.T) {
	var calls atomic.Int32
	s := richFixture(t, 1000, &calls)
	r := call(t, s, "media__huge", `{}`)
	out := mustOK(t, r)
	if r.Rich != nil {
		t.Fatalf("a spilled result still carries its blocks")
	}
	var h struct {
		ToolOutput pipeline.ToolOutput `json:"tool_output"`
	}
	if err := json.Unmarshal([]byte(out), &h); err != nil || h.ToolOutput.Handle == "" {
		t.Fatalf("not a tool_output handle: %v: %s", err, out)
	}
	var got strings.Builder
	for offset := 0; ; {
		page := mustOK(t, call(t, s, "output_read", `{"handle":"`+h.ToolOutput.Handle+`","offset":`+itoa(offset)+`}`))
		var p struct {
			Content    string `json:"content"`
			NextOffset int    `json:"next_offset"`
			EOF        bool   `json:"eof"`
		}
		if err := json.Unmarshal([]byte(page), &p); err != nil {
			t.Fatal(err)
		}
		got.WriteString(p.Content)
		if p.EOF {
			break
		}
		offset = p.NextOffset
	}
	var img mcp.ImageContent
	if err := json.Unmarshal([]byte(got.String()), &img); err != nil || len(img.Data) != 3000 || img.MIMEType != "image/png" {
		t.Fatalf("output_read returned %d bytes that are not the image (%v)", got.Len(), err)
	}
}

// A tool's own failure keeps its blocks: the host sees what the server said.
func TestRichErrorKeepsBlocks(t *testing.T) {
	var calls atomic.Int32
	s := richFixture(t, 100000, &calls)
	r := call(t, s, "media__broken", `{}`)
	if r.OK || r.Rich == nil || !r.Rich.IsError || len(r.Rich.Content) != 2 {
		t.Fatalf("result = %+v, want an error with both blocks", r)
	}
	if !strings.Contains(r.Error, "render failed") {
		t.Errorf("error = %q", r.Error)
	}
}

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }

// A declared tool's title, annotations and output schema reach ToolInfo;
// a Go tool with an output schema answers with structuredContent too.
func TestDeclaredToolMetadata(t *testing.T) {
	yes, no := true, false
	f := newFixture(decl.Agent{Name: "a", Use: useTools("count", "plain")}).withTools(
		decl.Tool{Name: "count", Kind: decl.KindGo, Title: "Count words",
			Annotations:  &decl.ToolAnnotations{ReadOnly: &yes, OpenWorld: &no},
			OutputSchema: json.RawMessage(`{"type":"object","properties":{"words":{"type":"integer"}}}`),
			Go: func(context.Context, json.RawMessage) (json.RawMessage, error) {
				return json.RawMessage(`{"words":3}`), nil
			}},
		decl.Tool{Name: "plain", Kind: decl.KindGo, Go: func(context.Context, json.RawMessage) (json.RawMessage, error) {
			return json.RawMessage(`{"words":3}`), nil
		}})
	s := open(t, f.reg, "a", f.opts(&events{}))
	var info *ToolInfo
	for _, ti := range s.Tools() {
		if ti.Name == "count" {
			info = &ti
		}
	}
	if info == nil || info.Title != "Count words" || info.Annotations == nil || !info.Annotations.ReadOnlyHint ||
		info.Annotations.OpenWorldHint == nil || *info.Annotations.OpenWorldHint || string(info.OutputSchema) == "" {
		t.Fatalf("count = %+v", info)
	}
	r := call(t, s, "count", `{}`)
	if mustOK(t, r); r.Rich == nil || string(r.Rich.Structured) != `{"words":3}` || r.Rich.Text() != `{"words":3}` {
		t.Errorf("count result = %+v, want structuredContent and the same JSON as text", r)
	}
	if r := call(t, s, "plain", `{}`); r.Rich != nil {
		t.Errorf("a tool without an output schema answered with structured content: %+v", r.Rich)
	}
}

// A Go tool whose Result is runtime.Rich answers with its blocks; one that
// sets isError fails with its text, the blocks kept.
func TestGoRichResult(t *testing.T) {
	rich := func(r *Rich) decl.GoFunc {
		return func(context.Context, json.RawMessage) (json.RawMessage, error) { return json.Marshal(r) }
	}
	f := newFixture(decl.Agent{Name: "a", Use: useTools("shot", "broken")}).withTools(
		decl.Tool{Name: "shot", Kind: decl.KindGo, RichResult: true, Go: rich(&Rich{Content: []mcp.Content{
			&mcp.TextContent{Text: "a pixel"}, &mcp.ImageContent{Data: []byte{1, 2, 3}, MIMEType: "image/png"}}})},
		decl.Tool{Name: "broken", Kind: decl.KindGo, RichResult: true, Go: rich(&Rich{IsError: true, Content: []mcp.Content{
			&mcp.TextContent{Text: "no pixel"}, &mcp.ImageContent{Data: []byte{0}, MIMEType: "image/png"}}})})
	s := open(t, f.reg, "a", f.opts(&events{}))
	r := call(t, s, "shot", `{}`)
	mustOK(t, r)
	if r.Rich == nil || len(r.Rich.Content) != 2 {
		t.Fatalf("shot = %+v", r)
	}
	if img, ok := r.Rich.Content[1].(*mcp.ImageContent); !ok || string(img.Data) != "\x01\x02\x03" {
		t.Errorf("image = %#v", r.Rich.Content[1])
	}
	if r := call(t, s, "broken", `{}`); r.OK || !strings.HasPrefix(r.Error, "no pixel") || r.Rich == nil || !r.Rich.IsError || len(r.Rich.Content) != 2 {
		t.Errorf("broken = %+v", r)
	}
}
