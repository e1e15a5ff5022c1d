package runtime

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/toolgen-dev/toolgen/runtime/decl"
)

// discoveryFixture: an agent that starts with the discovery tools only.
func discoveryFixture(t *testing.T) (*Session, *events) {
	f := newFixture(decl.Agent{Name: "d", Discovery: true, Use: append(useTools("registry_*", "entities_*", "summarize", "read_file"), useRuntime(decl.ToolFinalReport)...),
		Allowed: []string{"registry_*", "entities_get", "summarize", "read_file", "tool_*", decl.ToolMCPCall, decl.ToolFinalReport}, Aliases: []decl.Alias{{Name: "sum", Target: "summarize"}}})
	ev := &events{}
	return open(t, f.reg, "d", f.opts(ev)), ev
}

// Seed tool-search: Discovery starts with discovery tools.
func TestDiscoveryStartsWithDiscoveryTools(t *testing.T) {
	s, _ := discoveryFixture(t)
	if got := poolNames(s); len(got) != 0 {
		t.Errorf("discovery agent starts with pool tools: %v", got)
	}
	names := toolNames(s.Tools())
	for _, n := range []string{decl.ToolFind, decl.ToolDescribe, decl.ToolLoad, decl.ToolActive, decl.ToolMCPCall, decl.ToolFinalReport} {
		if !slices.Contains(names, n) {
			t.Errorf("missing %s: %v", n, names)
		}
	}
	if r := call(t, s, "summarize", `{}`); r.OK || !strings.Contains(r.Error, "not loaded") {
		t.Errorf("unloaded tool: %+v", r)
	}
}

// Seed tool-search, scenario "Search for registry tools".
func TestSearchForRegistryTools(t *testing.T) {
	s, _ := discoveryFixture(t)
	mustOK(t, call(t, s, decl.ToolLoad, `{"names":["registry_next"]}`))
	out := mustOK(t, call(t, s, decl.ToolFind, `{"query":"registry list tasks"}`))
	var res struct {
		Results []FindHit
	}
	json.Unmarshal([]byte(out), &res)
	if len(res.Results) < 2 || res.Results[0].Name != "registry_list" || res.Results[1].Name != "registry_next" {
		t.Fatalf("results %+v", res.Results)
	}
	if res.Results[0].Score < res.Results[1].Score || res.Results[0].Active || !res.Results[1].Active {
		t.Errorf("ranking/active flags %+v", res.Results)
	}
	for _, h := range res.Results {
		if h.Name == "entities_delete" || h.Name == "graph_traverse" {
			t.Errorf("tool_find ranked a tool outside the agent's policy: %s", h.Name)
		}
	}
}

// Seed tool-search, scenario "Limit search results".
func TestLimitSearchResults(t *testing.T) {
	s, _ := discoveryFixture(t)
	all := s.Find("entity registry tasks summarize", 100)
	if len(all) < 3 {
		t.Fatalf("hits %+v", all)
	}
	top := s.Find("entity registry tasks summarize", 2)
	if diff := cmp.Diff(all[:2], top); diff != "" {
		t.Errorf("limit changed the order (-want +got):\n%s", diff)
	}
	out := mustOK(t, call(t, s, decl.ToolFind, `{"query":"entity registry tasks summarize","limit":1}`))
	if strings.Count(out, `"name"`) != 1 {
		t.Errorf("limit 1: %s", out)
	}
}

// Seed tool-search, scenario "Describe a tool".
func TestDescribeATool(t *testing.T) {
	s, _ := discoveryFixture(t)
	out := mustOK(t, call(t, s, decl.ToolDescribe, `{"name":"read_file"}`))
	var d struct {
		Name, Description, Category string
		InputSchema                 json.RawMessage `json:"input_schema"`
		Active                      bool
		Keywords                    []string
	}
	json.Unmarshal([]byte(out), &d)
	if d.Name != "read_file" || d.Category != "files" || d.Active || !slices.Equal(d.Keywords, []string{"open", "cat", "contents"}) || len(d.InputSchema) == 0 {
		t.Errorf("describe: %s", out)
	}
	mustOK(t, call(t, s, decl.ToolLoad, `{"names":["read_file"]}`))
	if out := mustOK(t, call(t, s, decl.ToolDescribe, `{"name":"read_file"}`)); !strings.Contains(out, `"active":true`) {
		t.Errorf("after load: %s", out)
	}
}

// Seed tool-search: Describe tool not found.
func TestDescribeToolNotFound(t *testing.T) {
	s, _ := discoveryFixture(t)
	r := call(t, s, decl.ToolDescribe, `{"name":"registry_lst"}`)
	if r.OK || !strings.Contains(r.Error, `did you mean "registry_list"`) || !strings.Contains(r.Error, "tool_find") {
		t.Errorf("result %+v", r)
	}
	// a tool outside the policy is not described (nor confirmed to exist)
	if r := call(t, s, decl.ToolDescribe, `{"name":"entities_delete"}`); r.OK {
		t.Errorf("described a disallowed tool: %s", r.Result)
	}
}

// Seed tool-search, scenario "Load multiple tools".
func TestLoadMultipleTools(t *testing.T) {
	s, _ := discoveryFixture(t)
	changed := 0
	s.Subscribe(func() { changed++ })
	out := mustOK(t, call(t, s, decl.ToolLoad, `{"names":["registry_list","sum"]}`))
	var res struct {
		Loaded []struct {
			Name        string
			InputSchema json.RawMessage `json:"input_schema"`
		}
		ActiveCount int `json:"active_count"`
	}
	json.Unmarshal([]byte(out), &res)
	if len(res.Loaded) != 2 || res.ActiveCount != 2 || len(res.Loaded[0].InputSchema) == 0 {
		t.Errorf("load: %s", out)
	}
	if changed != 1 {
		t.Errorf("subscribers notified %d times", changed)
	}
	// summarize is listed under its alias, the name the agent chose
	if diff := cmp.Diff([]string{"registry_list", "sum"}, poolNames(s)); diff != "" {
		t.Errorf("active tools (-want +got):\n%s", diff)
	}
	// callable directly and through the meta call tool
	mustOK(t, call(t, s, "registry_list", `{}`))
	if out := mustOK(t, call(t, s, decl.ToolMCPCall, `{"tool":"sum","args":{"a":1}}`)); out != `{"a":1}` {
		t.Errorf("meta call of a loaded tool: %q", out)
	}
	if r := call(t, s, decl.ToolMCPCall, `{"tool":"registry_next","args":{}}`); r.OK {
		t.Error("meta call reached an unloaded tool")
	}
}

// Seed tool-search, scenario "Load already active tool".
func TestLoadAlreadyActiveTool(t *testing.T) {
	s, _ := discoveryFixture(t)
	mustOK(t, call(t, s, decl.ToolLoad, `{"names":["registry_list"]}`))
	out := mustOK(t, call(t, s, decl.ToolLoad, `{"names":["registry_list"]}`))
	if !strings.Contains(out, `"already_active":["registry_list"]`) || !strings.Contains(out, `"active_count":1`) {
		t.Errorf("reload: %s", out)
	}
}

// Seed tool-search, scenario "Load non-existent tool".
func TestLoadNonExistentTool(t *testing.T) {
	s, _ := discoveryFixture(t)
	for _, args := range []string{
		`{"names":["registry_list","no_such_tool"]}`,    // unknown
		`{"names":["registry_list","entities_delete"]}`, // outside the policy
		`{"names":["registry_list","graph_traverse"]}`,  // not in use
	} {
		r := call(t, s, decl.ToolLoad, args)
		if r.OK || !strings.Contains(r.Error, "othing was loaded") {
			t.Errorf("%s: %+v", args, r)
		}
	}
	if got := poolNames(s); len(got) != 0 {
		t.Errorf("a failed load activated %v", got)
	}
}

// Seed tool-search, scenario "List active tools".
func TestListActiveTools(t *testing.T) {
	s, _ := discoveryFixture(t)
	mustOK(t, call(t, s, decl.ToolLoad, `{"names":["summarize","registry_next"]}`))
	out := mustOK(t, call(t, s, decl.ToolActive, `{}`))
	// summarize under its alias, as tools/list shows it
	want := `{"count":2,"tools":[{"name":"registry_next","description":"Next task from the registry."},{"name":"sum","description":"Summarize a document."}]}`
	if out != want {
		t.Errorf("tool_active:\n got %s\nwant %s", out, want)
	}
}

// Seed tool-search, scenario "No active tools".
func TestNoActiveTools(t *testing.T) {
	s, _ := discoveryFixture(t)
	out := mustOK(t, call(t, s, decl.ToolActive, `{}`))
	if !strings.Contains(out, `"tools":[]`) || !strings.Contains(out, `"count":0`) || !strings.Contains(out, "No tools are active") {
		t.Errorf("tool_active: %s", out)
	}
}

// Seed tool-search, scenario "Tool name migration".
func TestToolNameMigration(t *testing.T) {
	f := newFixture(decl.Agent{Name: "a", Use: useTools("read_file")})
	ev := &events{}
	s := open(t, f.reg, "a", f.opts(ev))
	if !slices.Contains(poolNames(s), "read_file") {
		t.Fatal("renamed tool not registered under its new name")
	}
}

// Seed tool-search, scenario "Backward compatibility".
func TestBackwardCompatibility(t *testing.T) {
	f := newFixture(decl.Agent{Name: "a", Use: useTools("read_file")})
	ev := &events{}
	s := open(t, f.reg, "a", f.opts(ev))
	r := call(t, s, "fs_read_file", `{"path":"x"}`)
	if r.OK || r.Error != `tool "fs_read_file" not found: it was renamed to read_file` {
		t.Errorf("result %+v", r)
	}
	ev.requireOne(t, EventToolBlocked, "tool", "fs_read_file", "reason", "renamed")
}

// Seed tool-search: Index covers runtime discovered tools.
func TestIndexCoversRuntimeDiscoveredTools(t *testing.T) {
	f := newFixture(decl.Agent{Name: "a", Discovery: true, Use: []decl.Use{{Kind: decl.UseServer, Name: "docs"}}})
	s := open(t, f.reg, "a", f.opts(&events{}))
	// docs is in no lock file: its tool was indexed when the server connected
	hits := s.Find("search docs", 5)
	if len(hits) == 0 || hits[0].Name != "docs__search_docs" {
		t.Errorf("hits %+v", hits)
	}
}
