package runtime

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/toolgen-dev/toolgen/runtime/decl"
)

const weatherSchema = `{"type":"object",
	"$defs":{"Addr":{"type":"object","properties":{"zip":{"type":"string"}},"required":["zip"]}},
	"properties":{
		"city":{"type":"string"},
		"n":{"type":"integer"},
		"unit":{"type":"string","enum":["c","f"]},
		"addr":{"type":"object","properties":{"zip":{"type":"string"}},"required":["zip"]},
		"home":{"$ref":"#/$defs/Addr"},
		"tags":{"type":"array","items":{"type":"string"}}},
	"required":["city"]}`

// badArgs are calls the weather schema refuses, with the message a model
// gets for each.
var badArgs = []struct{ args, want string }{
	{`{}`, `missing required property "city"`},
	{`{"n":1}`, `missing required property "city"`},
	{`{"city":"Oslo","n":"5"}`, `property "n": expected integer, got string`},
	{`{"city":"Oslo","n":2.5}`, `property "n": expected integer, got number`},
	{`{"city":7}`, `property "city": expected string, got integer`},
	{`{"city":"Oslo","unit":"kelvin"}`, `property "unit": must be one of [c f]`},
	{`{"city":"Oslo","addr":{}}`, `property "addr": missing required property "zip"`},
	{`{"city":"Oslo","home":{"zip":5}}`, `property "home.zip": expected string, got integer`},
	{`{"city":"Oslo","tags":["a",1]}`, `property "tags[]": expected string, got integer`},
	{`null`, `expected a JSON object, got null`},
	{`["Oslo"]`, `expected a JSON object, got an array`},
	{`"Oslo"`, `expected a JSON object, got a string`},
}

// Arguments are checked against the input schema before the provider
// runs, for every kind of tool: a Go function, an MCP server tool (called
// directly and through mcp_call_tool), a REST endpoint and a builtin.
func TestArgsValidatedBeforeAnyProvider(t *testing.T) {
	var goCalls, mcpCalls, restCalls atomic.Int64
	conn := newMemConnector()
	srv := mcp.NewServer(&mcp.Implementation{Name: "w", Version: "1"}, nil)
	srv.AddTool(&mcp.Tool{Name: "forecast", InputSchema: json.RawMessage(weatherSchema)},
		func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			mcpCalls.Add(1)
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "sunny"}}}, nil
		})
	conn.add("w", srv)
	conn.add("wm", srv)
	api := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		restCalls.Add(1)
		w.Write([]byte(`"sunny"`))
	}))
	defer api.Close()
	wd := t.TempDir()
	os.WriteFile(filepath.Join(wd, "notes.txt"), []byte("hi\n"), 0o600)
	reg := &Registry{
		Separator: "__",
		Defaults:  decl.Defaults{ToolTimeout: 10 * time.Second, ResponseMaxBytes: 100000},
		Servers:   []decl.Server{{Name: "w", Transport: "stdio", Trusted: true}, {Name: "wm", Transport: "stdio", Trusted: false, AllowTools: []string{"forecast"}}},
		Policies:  []decl.Policy{{Name: "read", Builtin: "fs_read", AllowedPaths: []string{"."}}},
		Bundles:   []decl.Bundle{{Name: "wm_meta", Mode: "meta", Server: "wm", AllowTools: []string{"forecast"}}},
		Tools: []decl.Tool{
			{Name: "weather_go", Kind: decl.KindGo, InputSchema: json.RawMessage(weatherSchema),
				Go: func(context.Context, json.RawMessage) (json.RawMessage, error) {
					goCalls.Add(1)
					return json.RawMessage(`"sunny"`), nil
				}},
			{Name: "weather_rest", Kind: decl.KindREST, InputSchema: json.RawMessage(weatherSchema),
				REST: &decl.REST{Method: "GET", URL: decl.Value{{Lit: api.URL + "/v1/{city}"}}}},
			{Name: "read_file", Kind: decl.KindBuiltin, Policy: "read"},
		},
		Agents: []decl.Agent{{Name: "a", Use: []decl.Use{{Kind: decl.UseTool, Name: "weather_go"}, {Kind: decl.UseTool, Name: "weather_rest"},
			{Kind: decl.UseTool, Name: "read_file"}, {Kind: decl.UseServer, Name: "w"}, {Kind: decl.UseBundle, Name: "wm_meta"}}}},
	}
	s := open(t, reg, "a", Options{Logger: (&events{}).logger(), Connector: conn, Workdir: wd})

	for _, tool := range []string{"weather_go", "weather_rest", "w__forecast"} {
		for _, c := range badArgs {
			r := call(t, s, tool, c.args)
			want := `invalid arguments for tool "` + tool + `": ` + c.want
			if r.OK || r.Error != want {
				t.Errorf("%s(%s):\n got %q\nwant %q", tool, c.args, r.Error, want)
			}
		}
	}
	for _, c := range badArgs[:9] { // the meta tool's own args must be an object
		b, _ := json.Marshal(map[string]any{"server": "wm", "tool": "forecast", "args": json.RawMessage(c.args)})
		r := call(t, s, decl.ToolMCPCall, string(b))
		if want := `invalid arguments for tool "wm__forecast": ` + c.want; r.OK || r.Error != want {
			t.Errorf("mcp_call_tool(%s):\n got %q\nwant %q", c.args, r.Error, want)
		}
	}
	if n := goCalls.Load() + mcpCalls.Load() + restCalls.Load(); n != 0 {
		t.Errorf("providers ran %d times on invalid arguments", n)
	}
	r := call(t, s, "read_file", `{"path":5}`)
	if want := `invalid arguments for tool "read_file": property "path": expected string, got integer`; r.Error != want {
		t.Errorf("read_file: got %q, want %q", r.Error, want)
	}

	good := `{"city":"Oslo","n":3,"unit":"c","addr":{"zip":"0150"},"home":{"zip":"0151"},"tags":["a"]}`
	for _, tool := range []string{"weather_go", "weather_rest", "w__forecast"} {
		if out := mustOK(t, call(t, s, tool, good)); !strings.Contains(out, "sunny") {
			t.Errorf("%s: %s", tool, out)
		}
	}
	mustOK(t, call(t, s, decl.ToolMCPCall, `{"server":"wm","tool":"forecast","args":`+good+`}`))
	mustOK(t, call(t, s, "read_file", `{"path":"notes.txt"}`))
	if goCalls.Load() != 1 || mcpCalls.Load() != 2 || restCalls.Load() != 1 {
		t.Errorf("calls: go %d, mcp %d, rest %d", goCalls.Load(), mcpCalls.Load(), restCalls.Load())
	}
}

// A tool without a schema (or with {"type":"object"}) still takes only an
// object: a Go tool used to accept null.
func TestArgsTrivialSchemaTakesOnlyObjects(t *testing.T) {
	reg := &Registry{
		Tools:  []decl.Tool{{Name: "noop", Kind: decl.KindGo, Go: echoGo()}},
		Agents: []decl.Agent{{Name: "a", Use: []decl.Use{{Kind: decl.UseTool, Name: "noop"}}}},
	}
	s := open(t, reg, "a", Options{Logger: (&events{}).logger()})
	for _, args := range []string{`null`, `[]`, `1`, `true`, `"x"`, `   `} {
		r := call(t, s, "noop", args)
		if args == `   ` { // no arguments at all: the pipeline passes {}
			continue
		}
		if r.OK || !strings.HasPrefix(r.Error, `invalid arguments for tool "noop": expected a JSON object`) {
			t.Errorf("noop(%s) = %+v", args, r)
		}
	}
	for _, args := range []string{``, `{}`, " \n{\"a\":1}", `{"anything":[1,2]}`} {
		mustOK(t, call(t, s, "noop", args))
	}
}

// A schema the validator cannot use (invalid, an unsupported draft, a
// remote $ref, not an object) never refuses the tool's calls: it is
// reported once and the arguments are only checked to be an object.
func TestArgsUnusableSchemaSkipsValidation(t *testing.T) {
	schemas := map[string]string{
		"draft04":    `{"$schema":"http://json-schema.org/draft-04/schema#","type":"object","properties":{"a":{"type":"integer","minimum":0,"exclusiveMinimum":true}},"required":["a"]}`,
		"bad_type":   `{"type":"object","properties":{"a":{"type":7}},"required":["a"]}`,
		"remote_ref": `{"type":"object","properties":{"a":{"$ref":"https://schemas.example/a.json"}},"required":["a"]}`,
		"bad_regex":  `{"type":"object","properties":{"a":{"type":"string","pattern":"(unclosed"}},"required":["a"]}`,
	}
	var calls atomic.Int64
	srv := mcp.NewServer(&mcp.Implementation{Name: "odd", Version: "1"}, nil)
	for name, schema := range schemas {
		srv.AddTool(&mcp.Tool{Name: name, InputSchema: json.RawMessage(schema)},
			func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				calls.Add(1)
				return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "ran"}}}, nil
			})
	}
	conn := newMemConnector()
	conn.add("odd", srv)
	reg := &Registry{
		Separator: "__",
		Defaults:  decl.Defaults{ToolTimeout: 10 * time.Second},
		Servers:   []decl.Server{{Name: "odd", Transport: "stdio", Trusted: true}},
		Agents:    []decl.Agent{{Name: "a", Use: []decl.Use{{Kind: decl.UseServer, Name: "odd"}}}},
	}
	ev := &events{}
	s := open(t, reg, "a", Options{Logger: ev.logger(), Connector: conn})
	for name := range schemas {
		tool := "odd__" + name
		for range 2 {
			if out := mustOK(t, call(t, s, tool, `{}`)); out != "ran" {
				t.Errorf("%s: %s", tool, out)
			}
		}
		if r := call(t, s, tool, `null`); r.OK {
			t.Errorf("%s took null arguments", tool)
		}
		if got := ev.named(EventToolSchemaInvalid, "tool", tool); len(got) != 1 {
			t.Errorf("%s: %d %s events, want 1", tool, len(got), EventToolSchemaInvalid)
		} else if got[0].Attrs["error"] == "" || got[0].Attrs["server"] != "odd" {
			t.Errorf("%s: event %v", tool, got[0].Attrs)
		}
	}
	if calls.Load() != int64(2*len(schemas)) {
		t.Errorf("upstream ran %d times, want %d", calls.Load(), 2*len(schemas))
	}
}

// Sessions share a pool tool's compiled schema: concurrent first calls
// compile it once and validate in parallel (run with -race).
func TestArgsConcurrentValidation(t *testing.T) {
	reg := &Registry{
		Tools:  []decl.Tool{{Name: "w", Kind: decl.KindGo, InputSchema: json.RawMessage(weatherSchema), Go: echoGo()}},
		Agents: []decl.Agent{{Name: "a", Use: []decl.Use{{Kind: decl.UseTool, Name: "w"}}}},
	}
	s1 := open(t, reg, "a", Options{Logger: (&events{}).logger()})
	s2 := open(t, reg, "a", Options{Logger: (&events{}).logger()})
	var bad atomic.Int64
	var wg sync.WaitGroup
	for i := range 16 {
		s := s1
		if i%2 == 1 {
			s = s2
		}
		wg.Go(func() {
			for range 20 {
				if r := call(t, s, "w", `{"city":"Oslo","n":1}`); !r.OK {
					bad.Add(1)
				}
				if r := call(t, s, "w", `{"n":1}`); r.OK {
					bad.Add(1)
				}
			}
		})
	}
	wg.Wait()
	if bad.Load() != 0 {
		t.Errorf("%d wrong answers", bad.Load())
	}
}
