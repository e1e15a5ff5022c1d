package runtime

import (
	"context"
	"log/slog"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/toolgen-dev/toolgen/internal/enrich/enrichtest"
	"github.com/toolgen-dev/toolgen/internal/model/modeltest"
	"github.com/toolgen-dev/toolgen/runtime/decl"
	"github.com/toolgen-dev/toolgen/runtime/search"
)

// enrichedRegistry: an agent over the real server-memory, which has no
// lock entry, beside a declared tool in the precompiled index; the spec
// opts in to run-time enrichment with a model served by srv.
func enrichedRegistry(t *testing.T, provider string, srv *modeltest.Server) *Registry {
	node, args := npmServer(t, "server-memory")
	base := srv.OpenAIBaseURL()
	if provider == "anthropic" {
		base = srv.AnthropicBaseURL()
	}
	reg := &Registry{
		Package: "mem", Separator: "__",
		Defaults: decl.Defaults{ToolTimeout: 30 * time.Second, ResponseMaxBytes: 100000, StartupTimeout: 60 * time.Second, MaxDepth: 2, InitConcurrency: 4},
		Servers: []decl.Server{{Name: "memory", Transport: "stdio", Command: node, Args: args, Trusted: true,
			Env: []decl.KeyValue{{Key: "MEMORY_FILE_PATH", Value: decl.Value{{Lit: filepath.Join(t.TempDir(), "memory.jsonl")}}}}}},
		Tools:  []decl.Tool{{Name: "weather", Description: "Current weather for a city.", Kind: decl.KindGo, Go: echoGo()}},
		Agents: []decl.Agent{{Name: "m", Discovery: true, Use: []decl.Use{{Kind: decl.UseServer, Name: "memory"}, {Kind: decl.UseTool, Name: "weather"}}}},
		Models: []decl.Model{{Name: "fast", Provider: provider, ModelName: decl.Value{{Lit: "test-model"}},
			BaseURL: decl.Value{{Lit: base}}, APIKey: decl.Value{{Env: "ENRICH_TEST_KEY"}}}},
		Enrich: &decl.Enrich{Model: "fast"},
	}
	reg.Index = search.Build([]search.Doc{{Name: "weather", Description: "Current weather for a city."}})
	return reg
}

// TestRunTimeEnrichment: paraphrases over a server without a lock file
// find its tools once the model's queries arrive in the background, on
// both wire formats; a second process asks nothing and finds them from the
// cache at once.
func TestRunTimeEnrichment(t *testing.T) {
	for _, provider := range []string{"openai", "anthropic"} {
		t.Run(provider, func(t *testing.T) {
			t.Setenv("XDG_CACHE_HOME", t.TempDir())
			const key = "sk-enrich-test-0123456789"
			getenv := func(k string) (string, bool) {
				if k == "ENRICH_TEST_KEY" {
					return key, true
				}
				return "", false
			}
			srv := modeltest.NewServer(t)
			srv.RequireKey(key)
			scribe := enrichtest.NewScribe(t)
			release := make(chan struct{})
			srv.Respond(func(r *modeltest.Request) modeltest.Turn {
				<-release // hold the answer until the test has searched without it
				return scribe.Respond(r)
			})
			reg := enrichedRegistry(t, provider, srv)

			ev := &events{}
			h := NewHost(slog.New(slog.DiscardHandler))
			s, err := h.Open(context.Background(), reg, "m", Options{Getenv: getenv, Logger: ev.logger()})
			if err != nil {
				t.Fatal(err)
			}
			// Before the answer: no tool has the words, so the fallback.
			r := findCall(t, s, "remember a person")
			if r.Hint == "" {
				t.Errorf("remember a person found %v without enrichment", hitNames(r.Results))
			}
			close(release)
			done := waitEnriched(t, ev)
			if done.Attrs["asked"] != "9" || done.Attrs["failed"] != "0" || done.Attrs["error"] != "" {
				t.Errorf("enrichment event %v", done.Attrs)
			}
			for query, want := range map[string]string{
				"remember a person":                       "memory__create_entities",
				"please forget a person":                  "memory__delete_entities",
				"remember how two people know each other": "memory__create_relations",
				"could you recall everything you know":    "memory__read_graph",
				"current weather for a city":              "weather",
			} {
				r := findCall(t, s, query)
				if len(r.Results) == 0 || r.Results[0].Name != want || r.Hint != "" {
					t.Errorf("%q: %v (hint %q), want %s first", query, hitNames(r.Results), r.Hint, want)
				}
			}
			// What was sent: the server's tools by exposed name, nothing else.
			var sent []string
			for _, req := range srv.Requests() {
				tools, _ := enrichtest.Sent(t, req)
				for _, tool := range tools {
					sent = append(sent, tool.Name)
				}
			}
			slices.Sort(sent)
			if len(sent) != 9 || !strings.HasPrefix(sent[0], "memory__") || slices.Contains(sent, "weather") {
				t.Errorf("asked about %v", sent)
			}
			s.Close()
			h.Close()

			// Another process: the cache answers, the model is not asked.
			asked := len(srv.Requests())
			ev2 := &events{}
			h2 := NewHost(slog.New(slog.DiscardHandler))
			defer h2.Close()
			s2, err := h2.Open(context.Background(), reg, "m", Options{Getenv: getenv, Logger: ev2.logger()})
			if err != nil {
				t.Fatal(err)
			}
			defer s2.Close()
			if e := waitEnriched(t, ev2); e.Attrs["cached"] != "9" || e.Attrs["asked"] != "0" {
				t.Errorf("second process: %v", e.Attrs)
			}
			if r := findCall(t, s2, "remember a person"); len(r.Results) == 0 || r.Results[0].Name != "memory__create_entities" {
				t.Errorf("second process: %v", hitNames(r.Results))
			}
			if n := len(srv.Requests()); n != asked {
				t.Errorf("the model was asked %d more times", n-asked)
			}
		})
	}
}

// waitEnriched waits for the end of a background enrichment, or fails.
func waitEnriched(t *testing.T, ev *events) record {
	t.Helper()
	for deadline := time.Now().Add(time.Minute); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if got := ev.named(EventToolsEnriched); len(got) > 0 {
			return got[0]
		}
	}
	t.Fatal("no enrichment ended within a minute")
	return record{}
}

// An untrusted server's tool text is not the spec author's: it is never
// sent to the model, while a trusted server's tools are.
func TestRunTimeEnrichmentSkipsUntrusted(t *testing.T) {
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	srv := modeltest.NewServer(t)
	scribe := enrichtest.NewScribe(t)
	srv.Respond(scribe.Respond)
	conn := newMemConnector()
	conn.add("memory", memoryServer())
	conn.add("web", mcpServer("", "page_fetch"))
	reg := &Registry{
		Package: "mem", Separator: "__",
		Defaults: decl.Defaults{ToolTimeout: 30 * time.Second, ResponseMaxBytes: 100000, StartupTimeout: 10 * time.Second, MaxDepth: 2, InitConcurrency: 4},
		Servers: []decl.Server{
			{Name: "memory", Transport: "stdio", Command: "memory-server", Trusted: true},
			{Name: "web", Transport: "stdio", Command: "web-server", AllowTools: []string{"page_fetch"}},
		},
		Bundles: []decl.Bundle{{Name: "web_meta", Mode: "meta", Server: "web"}},
		Agents:  []decl.Agent{{Name: "m", Discovery: true, Use: []decl.Use{{Kind: decl.UseServer, Name: "memory"}, {Kind: decl.UseBundle, Name: "web_meta"}}}},
		Models:  []decl.Model{{Name: "fast", Provider: "openai", ModelName: decl.Value{{Lit: "test-model"}}, BaseURL: decl.Value{{Lit: srv.OpenAIBaseURL()}}, APIKey: decl.Value{{Lit: "sk-test-0123456789"}}}},
		Enrich:  &decl.Enrich{Model: "fast"},
		Index:   search.Build(nil),
	}
	ev := &events{}
	s := open(t, reg, "m", Options{Connector: conn, Logger: ev.logger()})
	var pooled []string
	for _, pt := range s.pool.Tools() {
		pooled = append(pooled, pt.Name)
	}
	if !slices.Contains(pooled, "web__page_fetch") {
		t.Fatalf("the untrusted tool is not in the pool: %v", pooled)
	}
	waitEnriched(t, ev)
	for name := range scribe.Times() {
		if !strings.HasPrefix(name, "memory__") {
			t.Errorf("%s was sent to the model", name)
		}
	}
	if n := len(scribe.Times()); n != len(memoryTools) {
		t.Errorf("%d tools asked about, want the %d memory tools", n, len(memoryTools))
	}
}
