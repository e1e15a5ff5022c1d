package full_test

// The acceptance test of the runtime: the generated registry of the full
// example, driven through every kind of call an agent host makes, against
// real parts — the pinned MCP reference server as a stdio child process
// (`make npm`), a go-sdk MCP server over streamable HTTP on loopback for the
// untrusted scraper, an httptest server for the REST tool, real files for
// the builtins — with assertions on results and on the slog events.

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/toolgen-dev/toolgen/examples/full/tools"
	"github.com/toolgen-dev/toolgen/generated/full"
	"github.com/toolgen-dev/toolgen/runtime"
	"github.com/toolgen-dev/toolgen/runtime/decl"
)

// hang is the upper bound that only catches hangs; no assertion is tighter.
const hang = 60 * time.Second

// env is what the agent binary would read from its environment.
type env struct {
	host        *runtime.Host // one per test, as a host program has one: sessions share pools, queues and connections
	workdir     string
	vars        map[string]string
	weatherHits chan *http.Request
	scraperAuth chan string
}

func (e *env) getenv(name string) (string, bool) {
	v, ok := e.vars[name]
	return v, ok
}

// options returns session options with their own event log.
func (e *env) options(t testing.TB) (runtime.Options, *events) {
	ev := &events{}
	return runtime.Options{
		Host:     e.host,
		Logger:   slog.New(ev.handler()),
		Getenv:   e.getenv,
		Workdir:  e.workdir,
		SpillDir: t.TempDir(),
	}, ev
}

func setup(t testing.TB) *env {
	t.Helper()
	// The spec runs server-everything with paths relative to the
	// repository root, like the agent binaries built from it.
	t.Chdir("../..")
	node := "testdata/npm/node_modules/.bin/node"
	if _, err := os.Stat(node); err != nil {
		t.Fatalf("%s missing: run `make npm` first (%v)", node, err)
	}

	e := &env{host: runtime.NewHost(nil), workdir: t.TempDir(), weatherHits: make(chan *http.Request, 16), scraperAuth: make(chan string, 64)}
	t.Cleanup(func() { e.host.Close() }) // registered first: runs after every session's Close
	must(t, os.MkdirAll(filepath.Join(e.workdir, "workspace", "out"), 0o755))
	must(t, os.WriteFile(filepath.Join(e.workdir, "workspace", "notes.txt"), []byte("Release notes.\nShip on Friday.\n"), 0o644))

	weather := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		e.weatherHits <- r.Clone(context.Background())
		if r.Header.Get("Authorization") != "Bearer weather-key" {
			http.Error(w, "unauthorized", http.StatusUnauthorized)
			return
		}
		city := strings.TrimPrefix(r.URL.Path, "/v1/")
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"city":%q,"temp_c":21}`, city)
	}))
	t.Cleanup(weather.Close)

	scraper := mcp.NewServer(&mcp.Implementation{Name: "scraper", Version: "1"}, nil)
	type pageArgs struct {
		URL string `json:"url"`
	}
	mcp.AddTool(scraper, &mcp.Tool{Name: "fetch_page", Description: "Fetch a web page as text."},
		func(_ context.Context, _ *mcp.CallToolRequest, a pageArgs) (*mcp.CallToolResult, any, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "page " + a.URL + ": hello"}}}, nil, nil
		})
	mcp.AddTool(scraper, &mcp.Tool{Name: "delete_page", Description: "Delete a cached page."},
		func(_ context.Context, _ *mcp.CallToolRequest, a pageArgs) (*mcp.CallToolResult, any, error) {
			t.Errorf("delete_page reached the scraper: the meta bundle's allow list was bypassed")
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "deleted"}}}, nil, nil
		})
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return scraper }, nil)
	scrapeSrv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case e.scraperAuth <- r.Header.Get("Authorization"):
		default:
		}
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(scrapeSrv.Close)

	e.vars = map[string]string{
		"WEATHER_URL":      weather.URL,
		"WEATHER_KEY":      "weather-key",
		"SCRAPER_URL":      scrapeSrv.URL,
		"SCRAPER_TOKEN":    "scraper-token",
		"EVERYTHING_TOKEN": "everything-token",
	}
	return e
}

func open(t testing.TB, e *env, agent string, mod func(*runtime.Options)) (*runtime.Session, *events) {
	t.Helper()
	opts, ev := e.options(t)
	if mod != nil {
		mod(&opts)
	}
	ctx, cancel := context.WithTimeout(context.Background(), hang)
	defer cancel()
	var s *runtime.Session
	var err error
	switch agent { // the generated constructors
	case full.AgentCoder:
		s, err = full.OpenCoder(ctx, opts)
	case full.AgentMaintainer:
		s, err = full.OpenMaintainer(ctx, opts)
	case full.AgentResearcher:
		s, err = full.OpenResearcher(ctx, opts)
	case full.AgentReviewer:
		s, err = full.OpenReviewer(ctx, opts)
	default:
		t.Fatalf("no constructor for %q", agent)
	}
	if err != nil {
		t.Fatalf("open %s: %v", agent, err)
	}
	t.Cleanup(func() { s.Close() })
	ev.requireOne(t, runtime.EventAgentBuild, "agent", agent)
	return s, ev
}

// call runs one tool call with the hang bound.
func call(t *testing.T, s *runtime.Session, name, args string) runtime.Result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), hang)
	defer cancel()
	r := s.Call(ctx, name, json.RawMessage(args))
	if ctx.Err() != nil {
		t.Fatalf("%s(%s) hung: %v", name, args, r.Error)
	}
	return r
}

func ok(t *testing.T, s *runtime.Session, name, args string) runtime.Result {
	t.Helper()
	r := call(t, s, name, args)
	if !r.OK {
		t.Fatalf("%s(%s) failed: %s", name, args, r.Error)
	}
	return r
}

func fails(t *testing.T, s *runtime.Session, name, args string, want ...string) runtime.Result {
	t.Helper()
	r := call(t, s, name, args)
	if r.OK {
		t.Fatalf("%s(%s) succeeded with %q; want an error", name, args, r.Result)
	}
	for _, w := range want {
		if !strings.Contains(r.Error, w) {
			t.Errorf("%s(%s) error %q does not contain %q", name, args, r.Error, w)
		}
	}
	return r
}

func names(infos []runtime.ToolInfo) []string {
	out := []string{}
	for _, i := range infos {
		out = append(out, i.Name)
	}
	return out
}

func TestFullExample(t *testing.T) {
	e := setup(t)

	t.Run("allowed", func(t *testing.T) {
		s, ev := open(t, e, full.AgentMaintainer, nil)
		r := ok(t, s, full.ToolWordCount, `{"text":"one two three"}`)
		if r.Result != "3" || r.Kind != decl.KindGo {
			t.Errorf("word_count = %+v; want 3 of kind go", r)
		}
		ev.requireOne(t, runtime.EventToolCall, "tool", "word_count", "agent", "maintainer", "status", "ok", "kind", "go")
		if got := ev.named(runtime.EventToolBlocked); len(got) != 0 {
			t.Errorf("allowed call produced tool.blocked: %v", got)
		}
	})

	t.Run("blocked", func(t *testing.T) {
		s, ev := open(t, e, full.AgentMaintainer, nil)
		for _, c := range []struct{ tool, reason, msg string }{
			// in use through server.everything, outside tools.allowed
			{"everything__get-tiny-image", "not_allowed", `tool "everything__get-tiny-image" not allowed for agent "maintainer"`},
			// declared in the spec, not used by this agent
			{full.ToolWeather, "not_allowed", `tool "weather" not allowed`},
			// denied by the server's deny_tools: never in the pool
			{"everything__get-env", "not_found", `tool "everything__get-env" not found`},
			// renamed_from
			{"fs_read_file", "renamed", "renamed to read_file"},
			// a typo gets the nearest names
			{"word_cout", "not_found", `did you mean "word_count"`},
		} {
			fails(t, s, c.tool, `{}`, c.msg)
			ev.requireOne(t, runtime.EventToolBlocked, "tool", c.tool, "agent", "maintainer", "reason", c.reason)
		}
		if len(ev.named(runtime.EventToolCall)) != 0 {
			t.Errorf("a blocked call reached a provider: %v", ev.named(runtime.EventToolCall))
		}
		if slices.Contains(names(s.Tools()), "everything__get-tiny-image") {
			t.Errorf("Tools() lists a blocked tool")
		}
	})

	t.Run("aliased", func(t *testing.T) {
		s, ev := open(t, e, full.AgentMaintainer, nil)
		direct := ok(t, s, full.ToolReadFile, `{"path":"workspace/notes.txt"}`)
		alias := ok(t, s, "cat", `{"path":"workspace/notes.txt"}`)
		if alias.Result != direct.Result || !strings.Contains(alias.Result, "Ship on Friday.") {
			t.Errorf("cat = %q; read_file = %q", alias.Result, direct.Result)
		}
		if n := len(ev.named(runtime.EventToolCall, "tool", "read_file", "status", "ok")); n != 2 {
			t.Errorf("%d tool.call events for read_file; want 2 (the alias reaches the target)", n)
		}
	})

	t.Run("globbed", func(t *testing.T) {
		s, _ := open(t, e, full.AgentMaintainer, nil)
		// "summ*" in tools.use and tools.allowed admits summarize.
		r := ok(t, s, full.ToolSummarize, `{"text":"One. Two. Three. Four.","max_sentences":2}`)
		var sum tools.SummarizeResult
		must(t, json.Unmarshal([]byte(r.Result), &sum))
		if sum.Summary != "One. Two." {
			t.Errorf("summarize = %+v", sum)
		}
		// "everything__get-s*" in tools.allowed admits get-sum, over stdio.
		r = ok(t, s, "everything__get-sum", `{"a":2,"b":3}`)
		if !strings.Contains(r.Result, "5") || r.Kind != decl.KindMCP || r.Namespace != "everything" {
			t.Errorf("everything__get-sum = %+v", r)
		}
		// outside both globs
		fails(t, s, "everything__get-annotated-message", `{"messageType":"success"}`, "not allowed")
	})

	t.Run("routed", func(t *testing.T) {
		s, _ := open(t, e, full.AgentReviewer, nil)
		ctx, cancel := context.WithTimeout(context.Background(), hang)
		defer cancel()
		servers := func() (out []string) {
			for _, ss := range s.Servers() {
				out = append(out, ss.Name)
			}
			return out
		}
		if got := servers(); !slices.Equal(got, []string{"everything"}) {
			t.Errorf("reviewer connected %v; want only everything", got)
		}
		for _, c := range []struct {
			wf, role, step string
			want           []string
		}{
			{"release", "planner", "plan", []string{"read_file", "summarize"}},
			{"release", "planner", "review", []string{"everything__echo", "everything__get-sum", "read_file", "summarize"}},
			// bundle.web is meta: only the meta tools, scoped to the scraper
			{"release", "writer", "draft", []string{"mcp_call_tool", "mcp_get_tool_schema", "mcp_list_tools", "read_file", "summarize"}},
		} {
			got, err := s.ToolsForStep(ctx, c.wf, c.role, c.step)
			must(t, err)
			if !slices.Equal(names(got), c.want) {
				t.Errorf("ToolsForStep(%s/%s/%s) = %v; want %v", c.wf, c.role, c.step, names(got), c.want)
			}
		}
		// the draft step connected the scraper, which its meta bundle needs
		if got := servers(); !slices.Equal(got, []string{"everything", "scraper"}) {
			t.Errorf("after the draft step, servers = %v", got)
		}
		// the draft step's meta scope reaches the scraper
		r := ok(t, s, "mcp_call_tool", `{"server":"scraper","tool":"fetch_page","args":{"url":"https://example.org"}}`)
		if !strings.Contains(r.Result, "page https://example.org: hello") {
			t.Errorf("step meta call = %q", r.Result)
		}
		// deny by default: unknown steps, roles and workflows route to nothing
		for _, addr := range [][3]string{{"release", "planner", "ship"}, {"release", "nobody", "plan"}, {"hotfix", "planner", "plan"}} {
			got, err := s.ToolsForStep(ctx, addr[0], addr[1], addr[2])
			must(t, err)
			if len(got) != 0 {
				t.Errorf("ToolsForStep(%v) = %v; want nothing", addr, names(got))
			}
		}
		// and the previous step's meta scope is gone
		fails(t, s, "mcp_call_tool", `{"server":"scraper","tool":"fetch_page","args":{"url":"https://example.org"}}`)
	})

	t.Run("routes_override", func(t *testing.T) {
		// Options.Routes replaces the generated switch for some addresses;
		// an empty list denies a step the spec routes
		s, _ := open(t, e, full.AgentReviewer, func(o *runtime.Options) {
			o.Routes = map[string][]string{"release/planner/plan": {}, "hotfix/writer/patch": {full.BundleFiles}}
		})
		ctx := context.Background()
		if got, err := s.ToolsForStep(ctx, "release", "planner", "plan"); err != nil || len(got) != 0 {
			t.Errorf("overridden-to-empty step = %v, %v", names(got), err)
		}
		if got, _ := s.ToolsForStep(ctx, "hotfix", "writer", "patch"); !slices.Equal(names(got), []string{"read_file", "summarize"}) {
			t.Errorf("added step = %v", names(got))
		}
		if got, _ := s.ToolsForStep(ctx, "release", "planner", "review"); len(got) != 4 {
			t.Errorf("steps not overridden keep the spec's routes: %v", names(got))
		}
	})

	t.Run("meta", func(t *testing.T) {
		s, ev := open(t, e, full.AgentResearcher, nil)
		visible := names(s.Tools())
		for _, n := range []string{"mcp_list_tools", "mcp_get_tool_schema", "mcp_call_tool"} {
			if !slices.Contains(visible, n) {
				t.Errorf("Tools() = %v; missing %s", visible, n)
			}
		}
		if slices.ContainsFunc(visible, func(n string) bool { return strings.HasPrefix(n, "scraper__") }) {
			t.Errorf("an untrusted server's tools are exposed directly: %v", visible)
		}
		var list struct {
			Server string `json:"server"`
			Tools  []struct {
				Name string `json:"name"`
			} `json:"tools"`
			Total int `json:"total"`
		}
		r := ok(t, s, "mcp_list_tools", `{"server":"scraper"}`)
		must(t, json.Unmarshal([]byte(r.Result), &list))
		if list.Total != 1 || len(list.Tools) != 1 || list.Tools[0].Name != "fetch_page" {
			t.Errorf("mcp_list_tools(scraper) = %s; want only fetch_page (the bundle's allow list)", r.Result)
		}
		r = ok(t, s, "mcp_call_tool", `{"server":"scraper","tool":"fetch_page","args":{"url":"https://example.org/a"}}`)
		if r.Result != "page https://example.org/a: hello" || r.Kind != decl.KindMeta {
			t.Errorf("mcp_call_tool(fetch_page) = %+v", r)
		}
		ev.requireOne(t, runtime.EventToolCall, "tool", "mcp_call_tool", "status", "ok")
		if auth := <-e.scraperAuth; auth != "Bearer scraper-token" {
			t.Errorf("scraper saw Authorization %q; want the env() header", auth)
		}
		fails(t, s, "mcp_call_tool", `{"server":"scraper","tool":"delete_page","args":{"url":"x"}}`,
			`tool "delete_page" of server "scraper" not allowed for agent "researcher"`)
		fails(t, s, "mcp_get_tool_schema", `{"server":"scraper","tool":"delete_page"}`, "not found")
		fails(t, s, "mcp_list_tools", `{"server":"everything"}`, `server "everything" is not reachable through meta tools`)
		fails(t, s, "scraper__fetch_page", `{"url":"x"}`, `tool "scraper__fetch_page" not allowed`)
		ev.requireOne(t, runtime.EventToolBlocked, "tool", "scraper__fetch_page")
	})

	t.Run("discovery", func(t *testing.T) {
		s, ev := open(t, e, full.AgentCoder, nil)
		if slices.Contains(names(s.Tools()), "read_file") {
			t.Fatalf("a discovery agent starts with read_file active: %v", names(s.Tools()))
		}
		fails(t, s, "read_file", `{"path":"workspace/notes.txt"}`, "not loaded", "tool_load")
		ev.requireOne(t, runtime.EventToolBlocked, "tool", "read_file", "reason", "not_loaded")

		var found struct {
			Results []runtime.FindHit `json:"results"`
		}
		r := ok(t, s, "tool_find", `{"query":"read the contents of a file","limit":5}`)
		must(t, json.Unmarshal([]byte(r.Result), &found))
		// under the alias tools/list shows it by (read = "read_file")
		if len(found.Results) == 0 || found.Results[0].Name != "read" || found.Results[0].Active {
			t.Fatalf("tool_find = %s; want read first, inactive", r.Result)
		}
		for i := 1; i < len(found.Results); i++ {
			if found.Results[i].Score > found.Results[i-1].Score {
				t.Errorf("tool_find not ranked: %s", r.Result)
			}
		}
		// weather is admitted by the "weath*" glob in use, not by allowed:
		// never findable, never loadable
		for _, h := range s.Find("weather for a city", 10) {
			if h.Name == "weather" {
				t.Errorf("tool_find offers weather, which coder may not call")
			}
		}
		fails(t, s, "tool_load", `{"names":["weather"]}`, "not allowed", "nothing was loaded")

		// atomic: one unknown name loads nothing
		fails(t, s, "tool_load", `{"names":["read","no_such_tool"]}`, `"no_such_tool" not found`, "Nothing was loaded")
		fails(t, s, "read_file", `{"path":"workspace/notes.txt"}`, "not loaded")

		changed := make(chan struct{}, 1)
		defer s.Subscribe(func() {
			select {
			case changed <- struct{}{}:
			default:
			}
		})()
		r = ok(t, s, "tool_load", `{"names":["read","summarize"]}`)
		var loaded struct {
			Loaded []struct {
				Name        string          `json:"name"`
				InputSchema json.RawMessage `json:"input_schema"`
			} `json:"loaded"`
		}
		must(t, json.Unmarshal([]byte(r.Result), &loaded))
		// the builtin's schema, not an empty object: hosts that ignore
		// tools/list_changed rely on what tool_load returns
		if len(loaded.Loaded) != 2 || loaded.Loaded[0].Name != "read" || loaded.Loaded[1].Name != "summarize" ||
			!strings.Contains(string(loaded.Loaded[0].InputSchema), `"path"`) || !strings.Contains(string(loaded.Loaded[1].InputSchema), `"max_sentences"`) {
			t.Errorf("tool_load = %s", r.Result)
		}
		select {
		case <-changed:
		default:
			t.Errorf("tool_load did not notify subscribers")
		}
		// listed under the alias the agent chose (read = "read_file")
		if !slices.Contains(names(s.Tools()), "read") {
			t.Errorf("Tools() after tool_load = %v", names(s.Tools()))
		}
		r = ok(t, s, "read_file", `{"path":"workspace/notes.txt"}`)
		if !strings.Contains(r.Result, "Release notes.") {
			t.Errorf("read_file after load = %q", r.Result)
		}
		ok(t, s, "read", `{"path":"workspace/notes.txt"}`) // the alias too
		// a loaded tool is reachable through the meta call tool as well
		r = ok(t, s, "mcp_call_tool", `{"tool":"summarize","args":{"text":"A. B."}}`)
		if !strings.Contains(r.Result, `"summary":"A. B."`) {
			t.Errorf("mcp_call_tool(summarize) = %q", r.Result)
		}
		r = ok(t, s, "tool_active", `{}`)
		if !strings.Contains(r.Result, `"count":2`) || !strings.Contains(r.Result, `"name":"read"`) || !strings.Contains(r.Result, `"name":"summarize"`) {
			t.Errorf("tool_active = %s", r.Result)
		}
		r = ok(t, s, "tool_describe", `{"name":"write_file"}`) // loadable, not loaded
		if !strings.Contains(r.Result, `"active":false`) || !strings.Contains(r.Result, `"content"`) || !strings.Contains(r.Result, `"category":"files"`) {
			t.Errorf("tool_describe(write_file) = %s", r.Result)
		}
		fails(t, s, "tool_describe", `{"name":"weather"}`, "not found")
		// idempotent
		r = ok(t, s, "tool_load", `{"names":["read_file"]}`)
		if !strings.Contains(r.Result, `"already_active":["read"]`) {
			t.Errorf("second tool_load = %s", r.Result)
		}
		// everything__get-env (it would print the environment) is denied by
		// the server's deny_tools: unreachable by any path
		fails(t, s, "tool_load", `{"names":["everything__get-env"]}`, "not found", "Nothing was loaded")
		fails(t, s, "mcp_call_tool", `{"server":"everything","tool":"get-env"}`)
		fails(t, s, "mcp_call_tool", `{"tool":"everything__get-env"}`)
		if r := ok(t, s, "agent__batch", `{"calls":[{"tool":"everything__get-env"}]}`); !strings.Contains(r.Result, `"ok":false`) || strings.Contains(r.Result, "EVERYTHING_TOKEN") {
			t.Errorf("batch get-env = %s", r.Result)
		}
		// a server tool through a glob of allowed ("everything__*")
		ok(t, s, "tool_load", `{"names":["everything__echo"]}`)
		if r := ok(t, s, "everything__echo", `{"message":"found"}`); !strings.Contains(r.Result, "found") {
			t.Errorf("everything__echo = %q", r.Result)
		}
	})

	t.Run("spilled", func(t *testing.T) {
		s, ev := open(t, e, full.AgentMaintainer, nil)
		args := tools.LinesArgs{Text: "spilled output line", Count: 12000}
		want, err := tools.NumberedLines(context.Background(), args)
		must(t, err)
		if len(want) <= full.Registry.Defaults.ResponseMaxBytes {
			t.Fatalf("test output of %d bytes does not exceed response_max_bytes", len(want))
		}
		b, _ := json.Marshal(args)
		r := ok(t, s, full.ToolNumberedLines, string(b))
		var h struct {
			Out struct {
				Handle string `json:"handle"`
				Reason string `json:"reason"`
				Bytes  int    `json:"bytes"`
				Lines  int    `json:"lines"`
			} `json:"tool_output"`
		}
		must(t, json.Unmarshal([]byte(r.Result), &h))
		if h.Out.Handle == "" || h.Out.Bytes != len(want) || h.Out.Lines != args.Count || h.Out.Reason != "size_limit_exceeded" {
			t.Fatalf("spilled result = %s", r.Result)
		}
		ev.requireOne(t, runtime.EventToolCall, "tool", "numbered_lines", "status", "ok")
		var got strings.Builder
		pages := 0
		for offset := 0; ; pages++ {
			if pages > 100 {
				t.Fatalf("output_read does not advance")
			}
			r := ok(t, s, "output_read", fmt.Sprintf(`{"handle":%q,"offset":%d}`, h.Out.Handle, offset))
			if len(r.Result) > full.Registry.Defaults.ResponseMaxBytes {
				t.Errorf("page of %d bytes exceeds response_max_bytes", len(r.Result))
			}
			var page struct {
				Content    string `json:"content"`
				NextOffset int    `json:"next_offset"`
				EOF        bool   `json:"eof"`
				Total      int    `json:"total_bytes"`
			}
			must(t, json.Unmarshal([]byte(r.Result), &page))
			got.WriteString(page.Content)
			if page.EOF {
				break
			}
			offset = page.NextOffset
		}
		if pages < 2 {
			t.Errorf("read in %d pages; want several", pages+1)
		}
		if got.String() != want {
			t.Errorf("pages reassemble to %d bytes, differing from the %d-byte original", got.Len(), len(want))
		}
		// a page with an explicit limit, and a handle that was never issued
		r = ok(t, s, "output_read", fmt.Sprintf(`{"handle":%q,"offset":2,"limit":10}`, h.Out.Handle))
		if !strings.Contains(r.Result, fmt.Sprintf(`"content":%q`, want[2:12])) {
			t.Errorf("output_read(offset 2, limit 10) = %s", r.Result)
		}
		fails(t, s, "output_read", `{"handle":"../../etc/passwd"}`, "unknown output handle")
	})

	t.Run("context_budget", func(t *testing.T) {
		// defaults.context_budget = 200000 tokens (about 4 bytes each):
		// paging through the same spilled output again and again runs out
		s, _ := open(t, e, full.AgentMaintainer, nil)
		b, _ := json.Marshal(tools.LinesArgs{Text: strings.Repeat("x", 90), Count: 4000}) // ~380 kB
		r := ok(t, s, full.ToolNumberedLines, string(b))
		var h struct {
			Out struct{ Handle string } `json:"tool_output"`
		}
		must(t, json.Unmarshal([]byte(r.Result), &h))
		read := 0
		for pass := 0; pass < 10; pass++ {
			for offset, eof := 0, false; !eof; {
				r := call(t, s, "output_read", fmt.Sprintf(`{"handle":%q,"offset":%d}`, h.Out.Handle, offset))
				if !r.OK {
					if !strings.Contains(r.Error, "context window budget exceeded") {
						t.Fatalf("output_read: %s", r.Error)
					}
					if read < 4*150000 {
						t.Errorf("budget exceeded after only %d bytes", read)
					}
					return
				}
				var page struct {
					Content    string `json:"content"`
					NextOffset int    `json:"next_offset"`
					EOF        bool   `json:"eof"`
				}
				must(t, json.Unmarshal([]byte(r.Result), &page))
				read += len(r.Result)
				offset, eof = page.NextOffset, page.EOF
			}
		}
		t.Errorf("read %d bytes without exceeding the context budget", read)
	})

	t.Run("timed_out", func(t *testing.T) {
		s, ev := open(t, e, full.AgentMaintainer, nil)
		start := time.Now()
		r := fails(t, s, full.ToolSleep, `{"milliseconds":600000}`, "timeout after 250ms")
		if d := time.Since(start); d > hang/2 {
			t.Errorf("timed-out call returned after %v", d)
		}
		ev.requireOne(t, runtime.EventToolCall, "tool", "sleep", "status", "failed", "error", r.Error)
		// under the timeout the tool answers
		if r := ok(t, s, full.ToolSleep, `{"milliseconds":1}`); r.Result != "slept 1 ms" {
			t.Errorf("sleep(1) = %q", r.Result)
		}
	})

	t.Run("queued", func(t *testing.T) {
		const calls, limit = 8, 2 // queue "fingerprint" { concurrent = 2 }
		// two sessions share the queue: it belongs to the registry's pool
		s1, _ := open(t, e, full.AgentMaintainer, nil)
		s2, _ := open(t, e, full.AgentMaintainer, nil)
		results := make([]runtime.Result, calls)
		var wg sync.WaitGroup
		for i := range calls {
			s := s1
			if i%2 == 1 {
				s = s2
			}
			wg.Go(func() {
				results[i] = call(t, s, full.ToolFingerprint, fmt.Sprintf(`{"text":"doc %d","hold_ms":100}`, i))
			})
		}
		wg.Wait()
		peak := int64(0)
		for i, r := range results {
			if !r.OK {
				t.Fatalf("call %d: %s", i, r.Error)
			}
			var fp tools.FingerprintResult
			must(t, json.Unmarshal([]byte(r.Result), &fp))
			if len(fp.SHA256) != 64 {
				t.Errorf("call %d: %s", i, r.Result)
			}
			peak = max(peak, fp.InFlight)
		}
		if peak > limit || peak < 1 {
			t.Errorf("%d fingerprint calls ran at once; the queue allows %d", peak, limit)
		}
		t.Logf("peak concurrency %d of %d allowed", peak, limit)

		// with both slots held, a waiting caller gives up with its own
		// context, and Close frees the callers queued in its session
		held := make(chan runtime.Result, limit)
		for range limit {
			go func() { held <- call(t, s1, full.ToolFingerprint, `{"text":"hold","hold_ms":5000}`) }()
		}
		for deadline := time.Now().Add(hang); tools.FingerprintsRunning() < limit; time.Sleep(time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatalf("the holders never started")
			}
		}
		ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
		r := s2.Call(ctx, full.ToolFingerprint, json.RawMessage(`{"text":"late"}`))
		cancel()
		if r.OK || !strings.Contains(r.Error, `waiting for queue "fingerprint"`) {
			t.Errorf("call while the queue is full, with a short context = %+v", r)
		}
		s3, ev3 := open(t, e, full.AgentMaintainer, nil)
		queued := make(chan runtime.Result, 1)
		go func() { queued <- call(t, s3, full.ToolFingerprint, `{"text":"queued"}`) }()
		time.Sleep(50 * time.Millisecond) // let it reach the queue; not asserted
		must(t, s3.Close())
		r = <-queued
		if r.OK || !(strings.Contains(r.Error, "agent context closed") || r.Error == "session closed") {
			t.Errorf("queued call of a closed session = %+v", r)
		}
		if len(held) != 0 {
			t.Errorf("Close of another session ended or waited for the holders")
		}
		ev3.requireOne(t, runtime.EventAgentTeardown, "agent", "maintainer", "forced", "false")
		for range limit {
			if r := <-held; !r.OK {
				t.Errorf("holder: %+v", r)
			}
		}

	})

	t.Run("provider_builtin", func(t *testing.T) {
		s, ev := open(t, e, full.AgentMaintainer, nil)
		// fs_read, confined to ./workspace under Options.Workdir
		if r := ok(t, s, full.ToolReadFile, `{"path":"workspace/notes.txt"}`); !strings.Contains(r.Result, "Ship on Friday.") || r.Kind != decl.KindBuiltin {
			t.Errorf("read_file = %+v", r)
		}
		must(t, os.WriteFile(filepath.Join(e.workdir, "secret.txt"), []byte("secret"), 0o600))
		must(t, os.Symlink(filepath.Join(e.workdir, "secret.txt"), filepath.Join(e.workdir, "workspace", "link.txt")))
		for _, p := range []string{"secret.txt", "workspace/../secret.txt", filepath.Join(e.workdir, "secret.txt"), "workspace/link.txt"} {
			r := call(t, s, full.ToolReadFile, fmt.Sprintf(`{"path":%q}`, p))
			if r.OK || strings.Contains(r.Result, "secret") {
				t.Errorf("read_file(%q) escaped the workspace: %+v", p, r)
			}
		}
		// fs_write, confined to ./workspace/out
		ok(t, s, full.ToolWriteFile, `{"path":"workspace/out/report.txt","content":"all good\n"}`)
		if b, err := os.ReadFile(filepath.Join(e.workdir, "workspace", "out", "report.txt")); err != nil || string(b) != "all good\n" {
			t.Errorf("report.txt = %q, %v", b, err)
		}
		fails(t, s, full.ToolWriteFile, `{"path":"workspace/notes.txt","content":"overwritten"}`)
		if b, _ := os.ReadFile(filepath.Join(e.workdir, "workspace", "notes.txt")); strings.Contains(string(b), "overwritten") {
			t.Errorf("write_file wrote outside workspace/out")
		}
		// shell_exec: argv only, allowed commands only
		must(t, os.WriteFile(filepath.Join(e.workdir, "go.mod"), []byte("module example.com/ws\n"), 0o644))
		if r := ok(t, s, full.ToolRunGit, `{"command":"go","args":["list","-m"]}`); strings.TrimSpace(r.Result) != "example.com/ws" {
			t.Errorf("run_git(go list -m) = %q; want the module of the workdir", r.Result)
		}
		// the input schema's enum refuses them before shell_exec runs
		fails(t, s, full.ToolRunGit, `{"command":"sh","args":["-c","echo pwned"]}`, `property "command": must be one of [git go]`)
		fails(t, s, full.ToolRunGit, `{"command":"go;true"}`, `property "command": must be one of [git go]`)
		ev.requireOne(t, runtime.EventToolCall, "tool", "run_git", "status", "ok", "kind", "builtin")
	})

	t.Run("provider_rest", func(t *testing.T) {
		s, ev := open(t, e, full.AgentResearcher, nil)
		for len(e.weatherHits) > 0 {
			<-e.weatherHits
		}
		r := ok(t, s, full.ToolWeather, `{"city":"Paris"}`)
		if !strings.Contains(r.Result, `"temp_c":21`) || r.Kind != decl.KindREST {
			t.Errorf("weather = %+v", r)
		}
		req := <-e.weatherHits
		if req.Method != http.MethodGet || req.URL.Path != "/v1/Paris" || req.Header.Get("Authorization") != "Bearer weather-key" {
			t.Errorf("weather request = %s %s (Authorization %q)", req.Method, req.URL.Path, req.Header.Get("Authorization"))
		}
		// the template escapes the argument: no path injection
		ok(t, s, full.ToolWeather, `{"city":"São Paulo/../admin"}`)
		if req := <-e.weatherHits; req.URL.EscapedPath() != "/v1/S%C3%A3o%20Paulo%2F..%2Fadmin" {
			t.Errorf("escaped path = %q", req.URL.EscapedPath())
		}
		ev.requireOne(t, runtime.EventToolCall, "tool", "weather", "status", "ok", "kind", "rest")
		for _, rec := range ev.named(runtime.EventToolCall) {
			if strings.Contains(fmt.Sprint(rec.Attrs), "weather-key") {
				t.Errorf("an event carries the secret: %v", rec.Attrs)
			}
		}

		// a missing variable is an error result naming it, not a crash
		s2, _ := open(t, e, full.AgentResearcher, func(o *runtime.Options) {
			o.Getenv = func(n string) (string, bool) {
				if n == "WEATHER_KEY" {
					return "", false
				}
				return e.getenv(n)
			}
		})
		fails(t, s2, full.ToolWeather, `{"city":"Paris"}`, "WEATHER_KEY")
	})

	t.Run("provider_mcp_stdio", func(t *testing.T) {
		s, ev := open(t, e, full.AgentMaintainer, nil)
		ev.requireOne(t, runtime.EventServerStart, "server", "everything")
		if len(ev.named(runtime.EventLockDrift)) != 0 {
			t.Errorf("server-everything drifted from toolgen.lock.json: %v", ev.named(runtime.EventLockDrift))
		}
		var st *runtime.ServerStatus
		for _, ss := range s.Servers() {
			if ss.Name == "everything" {
				st = &ss
			}
		}
		if st == nil || st.Error != "" || st.Tools == 0 {
			t.Fatalf("Servers() = %+v", s.Servers())
		}
		// the handshake's instructions are collected for the host's prompt
		if in := s.Instructions(); len(in) != 1 || !strings.Contains(in[0], "Everything Server") {
			t.Errorf("Instructions() = %.100q", in)
		}
		r := ok(t, s, "everything__echo", `{"message":"over stdio"}`)
		if !strings.Contains(r.Result, "over stdio") || r.Kind != decl.KindMCP {
			t.Errorf("everything__echo = %+v", r)
		}
		ev.requireOne(t, runtime.EventToolCall, "tool", "everything__echo", "server", "everything", "status", "ok")
		// a tool error of the server is an error result
		fails(t, s, "everything__get-sum", `{"a":"two"}`)
	})

	t.Run("server_fail", func(t *testing.T) {
		s, ev := open(t, e, full.AgentMaintainer, func(o *runtime.Options) {
			o.Getenv = func(n string) (string, bool) {
				if n == "EVERYTHING_TOKEN" {
					return "", false
				}
				return e.getenv(n)
			}
		})
		f := ev.requireOne(t, runtime.EventServerFail, "server", "everything")
		if !strings.Contains(fmt.Sprint(f.Attrs), "EVERYTHING_TOKEN") {
			t.Errorf("server.fail does not name the variable: %v", f.Attrs)
		}
		fails(t, s, "everything__echo", `{"message":"x"}`, "everything", "EVERYTHING_TOKEN")
		if slices.Contains(names(s.Tools()), "everything__echo") {
			t.Errorf("Tools() offers the tools of a failed server")
		}
		if ss := s.Servers(); len(ss) != 1 || ss[0].Health != runtime.HealthRed || !strings.Contains(ss[0].Error, "EVERYTHING_TOKEN") {
			t.Errorf("Servers() = %+v", ss)
		}
		ok(t, s, full.ToolWordCount, `{"text":"the rest goes on"}`)
	})

	t.Run("server_crash_reconnect", func(t *testing.T) {
		// a Host of its own, so that the child process is this subtest's;
		// connection events go to the logger of the session that opened
		// the connection (every component logs through Options.Logger)
		h := runtime.NewHost(nil)
		t.Cleanup(func() { h.Close() }) // after the session's Close (last in, first out)
		s, sessEv := open(t, e, full.AgentMaintainer, func(o *runtime.Options) { o.Host = h })
		ok(t, s, "everything__echo", `{"message":"before"}`)
		pid := childRunning(t, "server-everything")
		must(t, syscall.Kill(pid, syscall.SIGKILL))
		// the call in the gap may fail; the connection comes back on its own
		deadline := time.Now().Add(hang)
		for {
			r := call(t, s, "everything__echo", `{"message":"after"}`)
			if r.OK {
				if !strings.Contains(r.Result, "after") {
					t.Errorf("echo after reconnect = %q", r.Result)
				}
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("no reconnect: %s", r.Error)
			}
			time.Sleep(50 * time.Millisecond)
		}
		sessEv.requireOne(t, runtime.EventServerFail, "server", "everything", "reconnecting", "true")
		sessEv.requireOne(t, runtime.EventServerStart, "server", "everything", "attempt", "1")
		// the session's own logger hears of the death too, though the
		// server was back before any health check could see it
		sessEv.requireOne(t, runtime.EventServerFail, "server", "everything", "agent", full.AgentMaintainer)
		if p := childRunning(t, "server-everything"); p == pid {
			t.Errorf("the killed process %d is still listed", pid)
		}
	})

	t.Run("subagent", func(t *testing.T) {
		runner := &scriptedRunner{}
		s, ev := open(t, e, full.AgentCoder, func(o *runtime.Options) { o.Runner = runner })
		r := ok(t, s, "agent__researcher", `{"prompt":"count these four words"}`)
		if r.Result != "4" || r.Kind != decl.KindAgent {
			t.Errorf("agent__researcher = %+v; want the child's word_count result", r)
		}
		runs := runner.done()
		if len(runs) != 1 || runs[0].agent != "researcher" {
			t.Fatalf("Runner ran %+v", runs)
		}
		// the child has its own surface: researcher's tools, not coder's;
		// at depth 1 < max_depth it keeps spawn_agents, which it opts in to
		if tl := runs[0].tools; !slices.Contains(tl, "word_count") || slices.Contains(tl, "tool_find") || !slices.Contains(tl, "spawn_agents") {
			t.Errorf("child tools = %v", tl)
		}
		if runs[0].child.Agent() != "" {
			t.Errorf("the child session was not closed after Run")
		}
		// the child was built one level deeper, with the host's logger
		ev.requireOne(t, runtime.EventAgentBuild, "agent", "researcher", "depth", "1")
		ev.requireOne(t, runtime.EventToolCall, "tool", "word_count", "agent", "researcher", "status", "ok")

		// without a Runner the built-in loop runs the child: researcher has
		// no model and no host samples, so an error result says so;
		// undeclared sub-agents are blocked
		s2, _ := open(t, e, full.AgentCoder, nil)
		fails(t, s2, "agent__researcher", `{"prompt":"x"}`, "it has no model")
		fails(t, s2, "agent__reviewer", `{"prompt":"x"}`, `"agent__reviewer" not allowed`)
	})

	t.Run("spawn_max_depth", func(t *testing.T) {
		// researcher (depth 0) spawns coder (1), whose agent__researcher
		// runs researcher at depth 2 = max_depth: spawn_agents is removed
		// there, with a warning event.
		runner := &scriptedRunner{}
		s, ev := open(t, e, full.AgentResearcher, func(o *runtime.Options) { o.Runner = runner })
		r := ok(t, s, "list_available_agents", `{}`)
		if !strings.Contains(r.Result, `"name":"coder"`) || strings.Contains(r.Result, `"name":"researcher"`) {
			t.Errorf("list_available_agents = %s", r.Result)
		}
		r = ok(t, s, "spawn_agents", `{"agents":[{"agent":"coder","prompt":"delegate:researcher:one two three"},{"agent":"reviewer","prompt":"five"}]}`)
		var out []struct {
			Agent, Result, Error string
			OK                   bool
		}
		must(t, json.Unmarshal([]byte(r.Result), &out))
		if len(out) != 2 || out[0].Agent != "coder" || !out[0].OK || out[0].Result != "3" || out[1].Agent != "reviewer" || out[1].OK {
			t.Errorf("spawn_agents = %s; want coder→researcher counting 3, reviewer failing (it has no word_count)", r.Result)
		}
		var deepest *run
		for _, rn := range runner.done() {
			if rn.agent == "researcher" {
				deepest = &rn
			}
		}
		if deepest == nil || slices.Contains(deepest.tools, "spawn_agents") || slices.Contains(deepest.tools, "list_available_agents") {
			t.Errorf("researcher at max depth: %+v", deepest)
		}
		ev.requireOne(t, runtime.EventAgentBuild, "agent", "coder", "depth", "1")
		ev.requireOne(t, runtime.EventSubagentMaxDepth, "agent", "researcher", "depth", "2")
		fails(t, s, "spawn_agents", `{"agents":[{"agent":"researcher","prompt":"x"}]}`, `agent "researcher" cannot be spawned here`)
	})

	t.Run("router", func(t *testing.T) {
		s, ev := open(t, e, full.AgentCoder, nil)
		fails(t, s, "router__handoff-to", `{"agent":"researcher"}`, "not a router destination")
		ok(t, s, "tool_load", `{"names":["read_file"]}`)
		// an accepted handoff switches the session once the call has
		// ended; nothing of coder's context remains
		r := ok(t, s, "router__handoff-to", `{"agent":"reviewer","message":"please review"}`)
		var h struct {
			To, Message string
			Switched    bool
		}
		must(t, json.Unmarshal([]byte(strings.Replace(r.Result, "handoff_to", "to", 1)), &h))
		if h.To != "reviewer" || h.Message != "please review" || !h.Switched || r.Kind != decl.KindRouter {
			t.Errorf("handoff = %+v", r)
		}
		ctx, cancel := context.WithTimeout(context.Background(), hang)
		defer cancel()
		if s.Agent() != "reviewer" {
			t.Errorf("Agent() = %q after the handoff", s.Agent())
		}
		ev.requireOne(t, runtime.EventAgentTeardown, "agent", "coder")
		ev.requireOne(t, runtime.EventAgentBuild, "agent", "reviewer")
		if slices.Contains(names(s.Tools()), "tool_find") {
			t.Errorf("discovery tools survived the switch: %v", names(s.Tools()))
		}
		ok(t, s, "read_file", `{"path":"workspace/notes.txt"}`)
		fails(t, s, "router__handoff-to", `{"agent":"coder"}`)
		if err := s.Switch(ctx, "reviewr"); err == nil || !strings.Contains(err.Error(), `did you mean "reviewer"`) {
			t.Errorf("Switch to a typo: %v", err)
		}
	})

	t.Run("internal", func(t *testing.T) {
		mem := &memory{m: map[string]string{}}
		s, _ := open(t, e, full.AgentMaintainer, func(o *runtime.Options) { o.Memory = mem })
		ok(t, s, "agent__task_status", `{"status":"in-progress","now":"counting"}`)
		ok(t, s, "agent__final_report", `{"status":"success","content":"done"}`)
		if got, _ := mem.Get(runtime.MemoryKey(full.AgentMaintainer, runtime.MemoryFinalReport)); !strings.Contains(got, `"content":"done"`) {
			t.Errorf("final report in memory = %q", got)
		}
		fails(t, s, "agent__final_report", `{"status":"maybe"}`, "status must be")

		r := ok(t, s, "agent__batch", `{"calls":[
			{"tool":"word_count","args":{"text":"a b"}},
			{"tool":"cat","args":{"path":"workspace/notes.txt"}},
			{"tool":"weather","args":{"city":"Paris"}},
			{"tool":"everything__echo","args":{"message":"batched"}}]}`)
		var out []struct {
			Tool   string `json:"tool"`
			OK     bool   `json:"ok"`
			Result string `json:"result"`
			Error  string `json:"error"`
		}
		must(t, json.Unmarshal([]byte(r.Result), &out))
		if len(out) != 4 || !out[0].OK || out[0].Result != "2" || !out[1].OK || out[2].OK || !strings.Contains(out[2].Error, "not allowed") ||
			!out[3].OK || !strings.Contains(out[3].Result, "batched") {
			t.Errorf("agent__batch = %s", r.Result)
		}
	})

	t.Run("surface", func(t *testing.T) {
		// what each agent sees at depth 0, straight from the spec
		// (the runtime tools named in tools.use, the others' own settings;
		// an aliased tool under its alias)
		base := []string{}
		for agent, own := range map[string][]string{
			full.AgentCoder: {"agent__batch", "agent__researcher", "mcp_call_tool", "output_read", "router__handoff-to", "tool_active", "tool_describe", "tool_find", "tool_load"},
			full.AgentMaintainer: {"agent__batch", "agent__final_report", "agent__task_status", "output_read",
				"cat", "everything__echo", "everything__get-structured-content", "everything__get-sum", "fingerprint",
				"numbered_lines", "run_git", "sleep", "summarize", "word_count", "write_file"},
			full.AgentResearcher: {"list_available_agents", "mcp_call_tool", "mcp_get_tool_schema", "mcp_list_tools", "spawn_agents", "weather", "word_count"},
			full.AgentReviewer:   {"everything__echo", "everything__get-sum", "read_file", "summarize"},
		} {
			s, _ := open(t, e, agent, nil)
			want := slices.Sorted(slices.Values(append(slices.Clone(base), own...)))
			if got := names(s.Tools()); !slices.Equal(got, want) {
				t.Errorf("%s: Tools() = %v; want %v", agent, got, want)
			}
		}
	})

	t.Run("explain_matches_session", func(t *testing.T) {
		// toolgen explain resolves without connecting; a live session,
		// with server-everything's real tools/list, must agree with it
		for _, agent := range []string{full.AgentCoder, full.AgentMaintainer, full.AgentResearcher, full.AgentReviewer} {
			x, err := runtime.Explain(full.Registry, runtime.ExplainOptions{Agent: agent})
			must(t, err)
			var callable, loadable, excluded []string
			for _, tl := range x.Tools {
				switch tl.Status {
				case runtime.StatusCallable:
					callable = append(callable, tl.Name)
				case runtime.StatusLoadable:
					loadable = append(loadable, tl.Name)
				case runtime.StatusExcluded:
					excluded = append(excluded, tl.Name)
				}
			}
			s, _ := open(t, e, agent, nil)
			if got := names(s.Tools()); !slices.Equal(got, callable) {
				t.Errorf("%s: session Tools() = %v; explain says callable %v", agent, got, callable)
			}
			if len(loadable) > 0 {
				b, _ := json.Marshal(map[string][]string{"names": loadable})
				ok(t, s, "tool_load", string(b))
				for _, n := range loadable {
					if !slices.Contains(names(s.Tools()), n) {
						t.Errorf("%s: %s loadable per explain, not listed after tool_load", agent, n)
					}
				}
			}
			for _, n := range excluded {
				if r := call(t, s, n, `{}`); r.OK || !strings.Contains(r.Error, "not") {
					t.Errorf("%s: %s excluded per explain, but the call gave %+v", agent, n, r)
				}
			}
		}
	})

	t.Run("close", func(t *testing.T) {
		// a sub-agent call in flight: the Runner waits until released
		runner := &blockingRunner{entered: make(chan struct{}), release: make(chan struct{})}
		s, ev := open(t, e, full.AgentCoder, func(o *runtime.Options) { o.Runner = runner })
		res := make(chan runtime.Result, 1)
		go func() { res <- call(t, s, "agent__researcher", `{"prompt":"x"}`) }()
		<-runner.entered
		closed := make(chan error, 1)
		go func() { closed <- s.Close() }()
		time.Sleep(100 * time.Millisecond) // let Close start waiting; not asserted
		close(runner.release)
		// Close waited for the call instead of cancelling it
		if r := <-res; !r.OK || r.Result != "done" {
			t.Errorf("call in flight during Close = %+v; want it to finish", r)
		}
		must(t, <-closed)
		must(t, s.Close()) // idempotent
		ev.requireOne(t, runtime.EventAgentTeardown, "agent", "coder", "forced", "false")
		if r := s.Call(context.Background(), full.ToolWordCount, json.RawMessage(`{"text":"x"}`)); r.OK || r.Error != "session closed" {
			t.Errorf("call after Close = %+v", r)
		}
		if s.Tools() != nil || s.Agent() != "" {
			t.Errorf("a closed session still lists tools")
		}
	})

	t.Run("concurrent_mix", func(t *testing.T) {
		// every kind of call at once on one session while steps change,
		// tools load and finally the agent switches: -race finds shared
		// state, and every call ends with a result or a clear error
		runner := &scriptedRunner{}
		s, _ := open(t, e, full.AgentCoder, func(o *runtime.Options) { o.Runner = runner })
		ctx, cancel := context.WithTimeout(context.Background(), hang)
		defer cancel()
		calls := []struct{ tool, args string }{
			{"tool_find", `{"query":"echo"}`},
			{"tool_load", `{"names":["read_file","everything__echo","summarize"]}`},
			{"read_file", `{"path":"workspace/notes.txt"}`},
			{"everything__echo", `{"message":"mix"}`},
			{"summarize", `{"text":"A. B."}`},
			{"agent__researcher", `{"prompt":"a b c"}`},
			{"agent__batch", `{"calls":[{"tool":"read","args":{"path":"workspace/notes.txt"}},{"tool":"tool_active"}]}`},
			{"mcp_call_tool", `{"server":"scraper","tool":"fetch_page","args":{"url":"u"}}`},
			{"router__handoff-to", `{"agent":"reviewer"}`},
			{"output_read", `{"handle":"none"}`},
		}
		var wg sync.WaitGroup
		for i := range 40 {
			c := calls[i%len(calls)]
			wg.Go(func() {
				r := s.Call(ctx, c.tool, json.RawMessage(c.args))
				if !r.OK && r.Error == "" {
					t.Errorf("%s failed without an error message", c.tool)
				}
			})
		}
		steps := [][3]string{{"release", "writer", "draft"}, {"release", "planner", "review"}, {"release", "planner", "nope"}}
		for i := range 9 {
			wg.Go(func() {
				st := steps[i%len(steps)]
				if _, err := s.ToolsForStep(ctx, st[0], st[1], st[2]); err != nil && err.Error() != "session closed" {
					t.Errorf("ToolsForStep: %v", err)
				}
			})
		}
		wg.Wait()
		must(t, s.Switch(ctx, full.AgentReviewer))
		if r := ok(t, s, "everything__echo", `{"message":"after switch"}`); !strings.Contains(r.Result, "after switch") {
			t.Errorf("echo after switch = %q", r.Result)
		}
		if ctx.Err() != nil {
			t.Fatalf("hung")
		}
	})

	t.Run("unknown_agent", func(t *testing.T) {
		opts, _ := e.options(t)
		if _, err := runtime.Open(context.Background(), full.Registry, "maintaner", opts); err == nil || !strings.Contains(err.Error(), `did you mean "maintainer"`) {
			t.Errorf("Open(maintaner) = %v", err)
		}
	})
}

// scriptedRunner stands in for the host's LLM loop. A prompt
// "delegate:AGENT:TEXT" calls the child's agent__AGENT with TEXT; any
// other prompt is counted with the child's word_count tool.
type scriptedRunner struct {
	mu   sync.Mutex
	runs []run
}

type run struct {
	agent string
	tools []string
	child *runtime.Session
}

func (r *scriptedRunner) Run(ctx context.Context, child *runtime.Session, prompt string) (string, error) {
	r.mu.Lock()
	r.runs = append(r.runs, run{child.Agent(), names(child.Tools()), child})
	r.mu.Unlock()
	tool, args := "word_count", map[string]string{"text": prompt}
	if rest, ok := strings.CutPrefix(prompt, "delegate:"); ok {
		agent, text, _ := strings.Cut(rest, ":")
		tool, args = "agent__"+agent, map[string]string{"prompt": text}
	}
	b, _ := json.Marshal(args)
	res := child.Call(ctx, tool, b)
	if !res.OK {
		return "", fmt.Errorf("%s: %s", tool, res.Error)
	}
	return res.Result, nil
}

func (r *scriptedRunner) done() []run {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.runs)
}

// childRunning returns the pid of this process's child whose command line
// contains what.
func childRunning(t *testing.T, what string) int {
	t.Helper()
	self := strconv.Itoa(os.Getpid())
	tasks, err := os.ReadDir("/proc/" + self + "/task")
	if err != nil {
		t.Skipf("no /proc: %v", err)
	}
	for _, task := range tasks {
		b, _ := os.ReadFile("/proc/" + self + "/task/" + task.Name() + "/children")
		for _, f := range strings.Fields(string(b)) {
			cmd, _ := os.ReadFile("/proc/" + f + "/cmdline")
			if strings.Contains(string(cmd), what) {
				pid, _ := strconv.Atoi(f)
				return pid
			}
		}
	}
	t.Fatalf("no child process running %s", what)
	return 0
}

// blockingRunner holds a sub-agent call in flight until released.
type blockingRunner struct {
	entered, release chan struct{}
}

func (r *blockingRunner) Run(ctx context.Context, _ *runtime.Session, _ string) (string, error) {
	close(r.entered)
	select {
	case <-r.release:
		return "done", nil
	case <-ctx.Done():
		return "", context.Cause(ctx)
	}
}

// memory is a host-supplied Memory.
type memory struct {
	mu sync.Mutex
	m  map[string]string
}

func (m *memory) Get(k string) (string, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	v, ok := m.m[k]
	return v, ok
}

func (m *memory) Set(k, v string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.m[k] = v
}

func must(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// events records slog records; sessions and managers log into it.
type events struct {
	mu   sync.Mutex
	recs []event
}

type event struct {
	Level slog.Level
	Name  string
	Attrs map[string]string
}

func (e *events) handler() slog.Handler { return eventHandler{e: e} }

// eventHandler keeps the attributes of Logger.With, which connection
// managers use for the server name.
type eventHandler struct {
	e     *events
	attrs []slog.Attr
}

func (h eventHandler) Enabled(context.Context, slog.Level) bool { return true }
func (h eventHandler) Handle(_ context.Context, r slog.Record) error {
	ev := event{Level: r.Level, Name: r.Message, Attrs: map[string]string{}}
	for _, a := range h.attrs {
		ev.Attrs[a.Key] = a.Value.String()
	}
	r.Attrs(func(a slog.Attr) bool { ev.Attrs[a.Key] = a.Value.String(); return true })
	h.e.mu.Lock()
	h.e.recs = append(h.e.recs, ev)
	h.e.mu.Unlock()
	return nil
}
func (h eventHandler) WithAttrs(as []slog.Attr) slog.Handler {
	return eventHandler{h.e, append(slices.Clip(h.attrs), as...)}
}
func (h eventHandler) WithGroup(string) slog.Handler { return h }

func (e *events) named(name string, attrs ...string) []event {
	e.mu.Lock()
	defer e.mu.Unlock()
	var out []event
next:
	for _, r := range e.recs {
		if r.Name != name {
			continue
		}
		for i := 0; i+1 < len(attrs); i += 2 {
			if r.Attrs[attrs[i]] != attrs[i+1] {
				continue next
			}
		}
		out = append(out, r)
	}
	return out
}

func (e *events) requireOne(t testing.TB, name string, attrs ...string) event {
	t.Helper()
	if got := e.named(name, attrs...); len(got) > 0 {
		return got[0]
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	var all []string
	for _, r := range e.recs {
		all = append(all, fmt.Sprintf("%s %v", r.Name, r.Attrs))
	}
	t.Fatalf("no %s event with %v; events:\n%s", name, attrs, strings.Join(all, "\n"))
	return event{}
}
