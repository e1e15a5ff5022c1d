package runtime

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/toolgen-dev/toolgen/internal/mcpconn"
	"github.com/toolgen-dev/toolgen/internal/redact"
	"github.com/toolgen-dev/toolgen/runtime/decl"
)

func envMap(m map[string]string) func(string) (string, bool) {
	return func(k string) (string, bool) { v, ok := m[k]; return v, ok }
}

// requireScrubbed fails if text holds any part of secret that would give
// it away (its distinctive tail), in any form.
func requireScrubbed(t *testing.T, what, text, tail string) {
	t.Helper()
	if strings.Contains(text, tail) {
		t.Errorf("%s leaks the secret (%q): %s", what, tail, text)
	}
	if !strings.Contains(text, redact.Mark) {
		t.Errorf("%s has no %s mark: %s", what, redact.Mark, text)
	}
}

// server-everything's get-env prints its whole environment as JSON: the
// server's env() value comes back inside a JSON string, escaped as
// JSON.stringify escapes it. The result carries neither form; a value
// under 8 bytes is left alone (and reported by name at Open).
func TestSecretsScrubbedFromEverythingGetEnv(t *testing.T) {
	node, args := everything(t)
	const token = `sk-"live"\path<&>-0123456789`
	ev := &events{}
	m := mcpconn.NewManager(ev.logger())
	defer m.Close()
	reg := &Registry{
		Package: "p", Separator: "__",
		Defaults: decl.Defaults{ToolTimeout: 30 * time.Second, StartupTimeout: 30 * time.Second, ResponseMaxBytes: 1 << 20, InitConcurrency: 1, MaxDepth: 1},
		Servers: []decl.Server{{Name: "everything", Transport: "stdio", Command: node, Args: args, Trusted: true,
			Env: []decl.KeyValue{
				{Key: "API_TOKEN", Value: decl.Value{{Env: "EV_TOKEN"}}},
				{Key: "SHORT_FLAG", Value: decl.Value{{Env: "EV_SHORT"}}},
			}}},
		Agents: []decl.Agent{{Name: "a", Use: []decl.Use{{Kind: decl.UseGlob, Name: "everything__get-env"}}}},
	}
	s := open(t, reg, "a", Options{Logger: ev.logger(), Connector: mcpConnector{m: m},
		Getenv: envMap(map[string]string{"EV_TOKEN": token, "EV_SHORT": "S"})})
	out := mustOK(t, call(t, s, "everything__get-env", `{}`))
	requireScrubbed(t, "get-env result", out, "0123456789")
	if !strings.Contains(out, `"API_TOKEN": "[redacted]"`) {
		t.Errorf("the escaped token is not replaced whole: %s", out)
	}
	// "S" is too short to scrub: scrubbing it would have garbled
	// "SHORT_FLAG" itself and every other S
	if !strings.Contains(out, `"SHORT_FLAG": "S"`) || strings.Count(out, redact.Mark) != 1 {
		t.Errorf("want only the token scrubbed: %s", out)
	}
	e := ev.requireOne(t, EventSecretShort, "variable", "EV_SHORT", "server", "everything")
	for k, v := range e.Attrs {
		if v == "S" {
			t.Errorf("secret.short shows the value in %s", k)
		}
	}
	if got := ev.named(EventSecretShort, "variable", "EV_TOKEN"); len(got) > 0 {
		t.Errorf("a long value reported as short: %v", got)
	}
}

// A REST endpoint that echoes its request: the header token (inside JSON,
// where Go escapes <, > and &) and the key in the URL's path come back in
// the result, in the spilled file of a large result and in error results.
func TestSecretsScrubbedFromREST(t *testing.T) {
	const token, key = "tok<en>&-AAAA1111", "key-BBBB2222"
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Query().Get("fail") != "" {
			http.Error(w, "denied for "+r.Header.Get("Authorization"), http.StatusForbidden)
			return
		}
		b, _ := json.Marshal(map[string]any{"path": r.URL.Path, "headers": r.Header, "pad": strings.Repeat(".", 300)})
		w.Write(b)
	}))
	defer srv.Close()
	reg := &Registry{
		Defaults: decl.Defaults{ToolTimeout: 10 * time.Second, ResponseMaxBytes: 256},
		Tools: []decl.Tool{{Name: "echo_http", Kind: decl.KindREST, REST: &decl.REST{Method: "GET",
			URL:     decl.Value{{Lit: srv.URL + "/v1/"}, {Env: "ECHO_KEY"}, {Lit: "/{x}"}},
			Headers: []decl.KeyValue{{Key: "Authorization", Value: decl.Value{{Lit: "Bearer "}, {Env: "ECHO_TOKEN"}}}}}}},
		Agents: []decl.Agent{{Name: "a", Use: []decl.Use{{Kind: decl.UseTool, Name: "echo_http"}, {Kind: decl.UseRuntime, Name: decl.ToolOutputRead}}}},
	}
	ev := &events{}
	s := open(t, reg, "a", Options{Logger: ev.logger(), SpillDir: t.TempDir(),
		Getenv: envMap(map[string]string{"ECHO_TOKEN": token, "ECHO_KEY": key})})

	out := mustOK(t, call(t, s, "echo_http", `{"x":"a"}`))
	var h struct {
		ToolOutput struct {
			Handle string `json:"handle"`
		} `json:"tool_output"`
	}
	if err := json.Unmarshal([]byte(out), &h); err != nil || h.ToolOutput.Handle == "" {
		t.Fatalf("want a spilled output: %s", out)
	}
	files, _ := filepath.Glob(filepath.Join(s.st.Load().spill.Dir(), "*"))
	if len(files) != 1 {
		t.Fatalf("spill files: %v", files)
	}
	disk, _ := os.ReadFile(files[0])
	requireScrubbed(t, "spilled file", string(disk), "AAAA1111")
	requireScrubbed(t, "spilled file", string(disk), "BBBB2222")
	var paged strings.Builder
	for offset, eof := 0, false; !eof; {
		var p struct {
			Content string `json:"content"`
			Next    int    `json:"next_offset"`
			EOF     bool   `json:"eof"`
		}
		args, _ := json.Marshal(map[string]any{"handle": h.ToolOutput.Handle, "offset": offset})
		if err := json.Unmarshal([]byte(mustOK(t, call(t, s, decl.ToolOutputRead, string(args)))), &p); err != nil {
			t.Fatal(err)
		}
		paged.WriteString(p.Content)
		offset, eof = p.Next, p.EOF
	}
	if paged.String() != string(disk) {
		t.Errorf("pages differ from the spilled file")
	}

	r := call(t, s, "echo_http", `{"x":"a","fail":"1"}`)
	if r.OK {
		t.Fatal("want an error result")
	}
	requireScrubbed(t, "error result", r.Error, "AAAA1111")
	for _, e := range ev.named(EventToolCall) {
		for k, v := range e.Attrs {
			if strings.Contains(v, "AAAA1111") || strings.Contains(v, "BBBB2222") {
				t.Errorf("tool.call event leaks a secret in %s: %s", k, v)
			}
		}
	}
}

// An MCP server over streamable HTTP that echoes the request headers and
// the URL path: the Authorization token and the key in the URL (which
// comes back URL-escaped) are scrubbed from the result.
func TestSecretsScrubbedFromHTTPMCP(t *testing.T) {
	const token, key = "tok-CCCC3333", "mcp key DDDD4444"
	server := mcp.NewServer(&mcp.Implementation{Name: "whoami", Version: "1"}, nil)
	server.AddTool(&mcp.Tool{Name: "whoami", InputSchema: json.RawMessage(`{"type":"object"}`)},
		func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			b, _ := json.Marshal(req.Extra.Header)
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: string(b)}}}, nil
		})
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return server }, nil)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		r.Header.Set("X-Path", r.URL.EscapedPath()) // the tool sees headers only
		h.ServeHTTP(w, r)
	}))
	defer srv.Close()
	m := mcpconn.NewManager(nil)
	defer m.Close()
	reg := &Registry{
		Package: "p", Separator: "__",
		Defaults: decl.Defaults{ToolTimeout: 10 * time.Second, StartupTimeout: 10 * time.Second, ResponseMaxBytes: 1 << 20, InitConcurrency: 1, MaxDepth: 1},
		Servers: []decl.Server{{Name: "who", Transport: "http", Trusted: true,
			URL:     decl.Value{{Lit: srv.URL + "/mcp/"}, {Env: "WHO_KEY"}},
			Headers: []decl.KeyValue{{Key: "Authorization", Value: decl.Value{{Lit: "Bearer "}, {Env: "WHO_TOKEN"}}}}}},
		Agents: []decl.Agent{{Name: "a", Use: []decl.Use{{Kind: decl.UseServer, Name: "who"}}}},
	}
	s := open(t, reg, "a", Options{Logger: (&events{}).logger(), Connector: mcpConnector{m: m},
		Getenv: envMap(map[string]string{"WHO_TOKEN": token, "WHO_KEY": key})})
	out := mustOK(t, call(t, s, "who__whoami", `{}`))
	if !strings.Contains(out, "X-Path") || !strings.Contains(out, "Bearer [redacted]") {
		t.Fatalf("the echo is not what the test expects: %s", out)
	}
	requireScrubbed(t, "whoami result", out, "CCCC3333")
	requireScrubbed(t, "whoami result", out, "DDDD4444")
}

// A short value is not scrubbed from errors either: GITHUB_TOKEN=x once
// turned every "exec" in a REST error into "e[redacted]ec".
func TestShortSecretLeavesErrorsReadable(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "exec failed", http.StatusBadGateway)
	}))
	defer srv.Close()
	reg := &Registry{
		Defaults: decl.Defaults{ToolTimeout: 10 * time.Second},
		Tools: []decl.Tool{{Name: "gh", Kind: decl.KindREST, REST: &decl.REST{Method: "GET", URL: decl.Value{{Lit: srv.URL + "/x"}},
			Headers: []decl.KeyValue{{Key: "Authorization", Value: decl.Value{{Lit: "token "}, {Env: "GITHUB_TOKEN"}}}}}}},
		Agents: []decl.Agent{{Name: "a", Use: []decl.Use{{Kind: decl.UseTool, Name: "gh"}}}},
	}
	ev := &events{}
	s := open(t, reg, "a", Options{Logger: ev.logger(), Getenv: envMap(map[string]string{"GITHUB_TOKEN": "x"})})
	r := call(t, s, "gh", `{}`)
	if r.OK || !strings.Contains(r.Error, "exec failed") || strings.Contains(r.Error, redact.Mark) {
		t.Errorf("error garbled: %+v", r)
	}
	ev.requireOne(t, EventSecretShort, "variable", "GITHUB_TOKEN", "tool", "gh")
}

// A session without env() values builds no scrubber: calls pay nothing.
func TestNoSecretsNoScrubber(t *testing.T) {
	reg := &Registry{
		Tools:  []decl.Tool{{Name: "noop", Kind: decl.KindGo, Go: echoGo()}},
		Agents: []decl.Agent{{Name: "a", Use: []decl.Use{{Kind: decl.UseTool, Name: "noop"}}}},
	}
	s := open(t, reg, "a", Options{Logger: (&events{}).logger()})
	if s.scrub != nil {
		t.Error("a scrubber without secrets")
	}
}

// Go tool results and errors go through the same scrubber: a Go tool that
// reads a declared server's token (or echoes one) does not show it.
func TestSecretsScrubbedFromGoToolResultsAndErrors(t *testing.T) {
	const token = "gho_EEEE5555ffff"
	reg := &Registry{
		Servers: []decl.Server{{Name: "gh", Transport: "stdio", Command: "true",
			Env: []decl.KeyValue{{Key: "GITHUB_TOKEN", Value: decl.Value{{Env: "GITHUB_TOKEN"}}}}}},
		Tools: []decl.Tool{
			{Name: "leak", Kind: decl.KindGo, Go: goTool(func(context.Context, json.RawMessage) (string, error) {
				return "token=" + token, nil
			})},
			{Name: "leak_err", Kind: decl.KindGo, Go: goTool(func(context.Context, json.RawMessage) (string, error) {
				return "", errors.New("auth failed with " + token)
			})},
		},
		Agents: []decl.Agent{{Name: "a", Use: []decl.Use{{Kind: decl.UseTool, Name: "leak"}, {Kind: decl.UseTool, Name: "leak_err"}}}},
	}
	s := open(t, reg, "a", Options{Logger: (&events{}).logger(), Getenv: envMap(map[string]string{"GITHUB_TOKEN": token})})
	requireScrubbed(t, "Go result", mustOK(t, call(t, s, "leak", `{}`)), "EEEE5555")
	requireScrubbed(t, "Go error", call(t, s, "leak_err", `{}`).Error, "EEEE5555")
}

// A model's key is a secret of the session too: a tool that prints it (a Go
// tool reading the process environment) gets it scrubbed from its result.
func TestModelKeyScrubbedFromResults(t *testing.T) {
	const key = "sk-model-KEY-0123456789abcdef"
	reg := &Registry{
		Package: "p", Separator: "__",
		Defaults: decl.Defaults{ToolTimeout: 30 * time.Second, ResponseMaxBytes: 1 << 20, MaxDepth: 1},
		Models:   []decl.Model{{Name: "fast", Provider: "openai", ModelName: decl.Value{{Lit: "m"}}, APIKey: decl.Value{{Env: "MODEL_KEY"}}}},
		Tools: []decl.Tool{{Name: "leak", Kind: decl.KindGo, InputSchema: json.RawMessage(`{"type":"object"}`),
			Go: func(context.Context, json.RawMessage) (json.RawMessage, error) {
				return json.Marshal("the key is " + key)
			}}},
		Agents: []decl.Agent{{Name: "a", Model: "fast", Use: []decl.Use{{Kind: decl.UseTool, Name: "leak"}}}},
	}
	s := open(t, reg, "a", Options{Logger: (&events{}).logger(), Getenv: envMap(map[string]string{"MODEL_KEY": key})})
	out := mustOK(t, call(t, s, "leak", `{}`))
	requireScrubbed(t, "leak result", out, "0123456789abcdef")
}

// Events are scrubbed too: a host that calls a tool named after a token
// (or puts one in any other value an event carries) finds it as
// [redacted] in tool.blocked, whatever the log's format.
func TestSecretsScrubbedFromEvents(t *testing.T) {
	const token = "gho_EEEE5555ffff"
	reg := &Registry{
		Servers: []decl.Server{{Name: "gh", Transport: "stdio", Command: "true",
			Env: []decl.KeyValue{{Key: "GITHUB_TOKEN", Value: decl.Value{{Env: "GITHUB_TOKEN"}}}}}},
		Tools:  []decl.Tool{{Name: "noop", Kind: decl.KindGo, Go: echoGo()}},
		Agents: []decl.Agent{{Name: "a", Use: []decl.Use{{Kind: decl.UseTool, Name: "noop"}}}},
	}
	ev := &events{}
	var jsonLog strings.Builder
	logger := slog.New(fanout{ev.handler(), slog.NewJSONHandler(&jsonLog, &slog.HandlerOptions{Level: slog.LevelDebug})})
	s := open(t, reg, "a", Options{Logger: logger, Getenv: envMap(map[string]string{"GITHUB_TOKEN": token})})
	if r := call(t, s, "steal_"+token, `{}`); r.OK {
		t.Fatal("an unknown tool answered")
	}
	blocked := ev.requireOne(t, "tool.blocked")
	requireScrubbed(t, "tool.blocked", blocked.Attrs["tool"], "EEEE5555")
	requireScrubbed(t, "JSON log", jsonLog.String(), "EEEE5555")
}

// fanout sends each record to every handler.
type fanout []slog.Handler

func (f fanout) Enabled(context.Context, slog.Level) bool { return true }
func (f fanout) Handle(ctx context.Context, r slog.Record) error {
	for _, h := range f {
		h.Handle(ctx, r.Clone())
	}
	return nil
}
func (f fanout) WithAttrs(as []slog.Attr) slog.Handler {
	out := make(fanout, len(f))
	for i, h := range f {
		out[i] = h.WithAttrs(as)
	}
	return out
}
func (f fanout) WithGroup(name string) slog.Handler {
	out := make(fanout, len(f))
	for i, h := range f {
		out[i] = h.WithGroup(name)
	}
	return out
}
