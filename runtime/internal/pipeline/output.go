package pipeline

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolgen-dev/toolgen/internal/mcpconn"
	"github.com/toolgen-dev/toolgen/internal/redact"
)

// Output is one tool's answer as the pipeline handles it: the text a model
// reads and, for a result that is more than one text block (images, audio,
// resources, structured content, _meta), the whole result. Rich is nil for
// plain text, which is most calls: they pay nothing for the rest.
type Output struct {
	Text string
	Rich *mcpconn.Result
}

// TaskCreated is the answer of a call an upstream server took as a task:
// its result goes through the output steps when the host collects it.
var TaskCreated = Output{Text: "task created", Rich: &taskCreated}

var taskCreated mcpconn.Result

// Task reports whether o is TaskCreated.
func (o Output) Task() bool { return o.Rich == &taskCreated }

// TextOutput is an answer of plain text.
func TextOutput(text string) Output { return Output{Text: text} }

// RichOutput is the answer for an MCP result: text only when that is all
// the result holds.
func RichOutput(r mcpconn.Result) Output {
	if r.PlainText() {
		return Output{Text: r.Text()}
	}
	rich := r // declared here so that plain text does not move r to the heap
	return Output{Text: r.Text(), Rich: &rich}
}

// StructuredOutput is the answer of a declared tool with an output schema:
// a JSON object result is structuredContent and, for hosts that read only
// content, the same JSON as a text block. Anything else stays text.
func StructuredOutput(text string) Output {
	if len(text) == 0 || text[0] != '{' || !json.Valid([]byte(text)) {
		return Output{Text: text}
	}
	return Output{Text: text, Rich: &mcpconn.Result{
		Content:    []mcp.Content{&mcp.TextContent{Text: text}},
		Structured: json.RawMessage(text),
	}}
}

// DecodeRich reads the answer of a Go tool that returns runtime.Rich (its
// wrapper encoded it as an MCP CallToolResult). A result with isError is
// the call's error, its text the result's, the blocks kept.
func DecodeRich(o Output, err error) (Output, error) {
	if err != nil {
		return o, err
	}
	var r mcpconn.Result
	if e := json.Unmarshal([]byte(o.Text), &r); e != nil {
		return Output{}, fmt.Errorf("tool result is not an MCP result: %v", e)
	}
	out := RichOutput(r)
	if r.IsError {
		return out, errors.New(out.Text)
	}
	return out, nil
}

// Size is the bytes the answer takes: the larger of its text and its
// blocks (binary data counted as base64).
func (o Output) Size() int {
	if o.Rich == nil {
		return len(o.Text)
	}
	return max(len(o.Text), o.Rich.Size())
}

// Scrub removes secrets from every part of the answer: the text, every
// text block, resource text and links, structured content and _meta.
// Binary data that holds a secret (an image of a token, a blob of an env
// file) cannot be edited; its block is replaced by a text block saying
// so. The answer is copied only when something changed.
func Scrub(r *redact.Redactor, o Output) Output {
	if r == nil {
		return o
	}
	o.Text = r.String(o.Text)
	if o.Rich == nil {
		return o
	}
	src := o.Rich
	var dst *mcpconn.Result // the copy, made on the first change
	edit := func() *mcpconn.Result {
		if dst == nil {
			c := *src
			c.Content = append([]mcp.Content(nil), src.Content...)
			dst = &c
		}
		return dst
	}
	for i, c := range src.Content {
		if n := scrubBlock(r, c); n != nil {
			edit().Content[i] = n
		}
	}
	if s := r.String(string(src.Structured)); s != string(src.Structured) {
		edit().Structured = json.RawMessage(s)
	}
	if m := scrubMeta(r, src.Meta); m != nil {
		edit().Meta = m
	}
	if dst != nil {
		o.Rich = dst
	}
	return o
}

// scrubBlock returns the block with its secrets removed, or nil when it
// holds none.
func scrubBlock(r *redact.Redactor, c mcp.Content) mcp.Content {
	switch c := c.(type) {
	case *mcp.TextContent:
		if s := r.String(c.Text); s != c.Text {
			n := *c
			n.Text = s
			return &n
		}
	case *mcp.ImageContent:
		if holds(r, c.Data) {
			return withheld("image")
		}
	case *mcp.AudioContent:
		if holds(r, c.Data) {
			return withheld("audio")
		}
	case *mcp.EmbeddedResource:
		if c.Resource == nil {
			return nil
		}
		if holds(r, c.Resource.Blob) {
			return withheld("resource " + r.String(c.Resource.URI))
		}
		if t, u := r.String(c.Resource.Text), r.String(c.Resource.URI); t != c.Resource.Text || u != c.Resource.URI {
			res := *c.Resource
			res.Text, res.URI = t, u
			n := *c
			n.Resource = &res
			return &n
		}
	case *mcp.ResourceLink:
		u, name, d, title := r.String(c.URI), r.String(c.Name), r.String(c.Description), r.String(c.Title)
		if u != c.URI || name != c.Name || d != c.Description || title != c.Title {
			n := *c
			n.URI, n.Name, n.Description, n.Title = u, name, d, title
			return &n
		}
	}
	return nil
}

func holds(r *redact.Redactor, data []byte) bool {
	return len(data) > 0 && r.String(string(data)) != string(data)
}

func withheld(what string) mcp.Content {
	return &mcp.TextContent{Text: "[" + what + " withheld: it contained a secret]"}
}

// scrubMeta returns _meta with secrets removed, or nil when it holds none.
func scrubMeta(r *redact.Redactor, m mcp.Meta) mcp.Meta {
	if len(m) == 0 {
		return nil
	}
	b, err := json.Marshal(m)
	if err != nil {
		return nil
	}
	s := r.String(string(b))
	if s == string(b) {
		return nil
	}
	var out mcp.Meta
	if json.Unmarshal([]byte(s), &out) != nil {
		return mcp.Meta{}
	}
	return out
}
