package runtime

import (
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/toolgen-dev/toolgen/runtime/decl"
)

// offset+limit overflowed for limit=MaxInt64 and the slice panicked
// ("tool panicked: slice bounds out of range").
func TestMCPListToolsHugeLimit(t *testing.T) {
	f := newFixture(decl.Agent{Name: "a", Use: []decl.Use{{Kind: decl.UseBundle, Name: "docs_meta"}}})
	f.conn.add("docs", mcpServer("Docs server.", "a_tool", "b_tool", "c_tool"))
	s := open(t, f.reg, "a", f.opts(&events{}))
	for _, c := range []struct {
		offset, limit int64
		want          []string
	}{
		{1, math.MaxInt64, []string{"b_tool", "c_tool"}},
		{0, math.MaxInt64, []string{"a_tool", "b_tool", "c_tool"}},
		{math.MaxInt64, math.MaxInt64, nil},
		{math.MinInt64, 1, []string{"a_tool"}},
	} {
		args := fmt.Sprintf(`{"server":"docs","offset":%d,"limit":%d}`, c.offset, c.limit)
		out := mustOK(t, call(t, s, decl.ToolMCPList, args))
		var page struct {
			Tools []struct{ Name string }
			Total int
		}
		if err := json.Unmarshal([]byte(out), &page); err != nil {
			t.Fatalf("%s: %v: %s", args, err, out)
		}
		var got []string
		for _, tl := range page.Tools {
			got = append(got, tl.Name)
		}
		if fmt.Sprint(got) != fmt.Sprint(c.want) || page.Total != 3 {
			t.Errorf("%s: tools %v total %d; want %v total 3", args, got, page.Total, c.want)
		}
	}
}

// A meta bundle is no way around tools.allowed: the meta tools reach only
// the server tools the agent's own allow list admits.
func TestMetaToolsHonourAllowed(t *testing.T) {
	f := newFixture(decl.Agent{Name: "a", Use: []decl.Use{{Kind: decl.UseBundle, Name: "docs_meta"}}, Allowed: []string{"docs__search_docs", "mcp_*"}})
	f.conn.add("docs", mcpServer("Docs server.", "search_docs", "delete_all"))
	s := open(t, f.reg, "a", f.opts(&events{}))
	mustOK(t, call(t, s, decl.ToolMCPCall, `{"server":"docs","tool":"search_docs","args":{}}`))
	r := call(t, s, decl.ToolMCPCall, `{"server":"docs","tool":"delete_all","args":{}}`)
	if r.OK || !strings.Contains(r.Error, "not allowed") {
		t.Errorf("mcp_call_tool reached a tool outside tools.allowed: %+v", r)
	}
	list := mustOK(t, call(t, s, decl.ToolMCPList, `{"server":"docs"}`))
	if strings.Contains(list, "delete_all") || !strings.Contains(list, "search_docs") {
		t.Errorf("mcp_list_tools: %s", list)
	}
	if r := call(t, s, decl.ToolMCPSchema, `{"server":"docs","tool":"delete_all"}`); r.OK {
		t.Errorf("mcp_get_tool_schema described a tool outside tools.allowed: %+v", r)
	}

	// Without tools.allowed the bundle's own scope decides.
	g := newFixture(decl.Agent{Name: "a", Use: []decl.Use{{Kind: decl.UseBundle, Name: "docs_meta"}}})
	g.conn.add("docs", mcpServer("Docs server.", "search_docs", "delete_all"))
	s2 := open(t, g.reg, "a", g.opts(&events{}))
	mustOK(t, call(t, s2, decl.ToolMCPCall, `{"server":"docs","tool":"delete_all","args":{}}`))
}

// A server tool whose exposed name is one of the runtime's own tools is
// never exposed: tool_find stays the discovery tool.
func TestServerToolsCannotTakeRuntimeNames(t *testing.T) {
	f := newFixture(decl.Agent{Name: "a", Discovery: true, Use: []decl.Use{{Kind: decl.UseServer, Name: "tool"}}})
	f.reg.Separator = "_"
	f.reg.Servers = append(f.reg.Servers, decl.Server{Name: "tool", Transport: "http", Trusted: true})
	slices.SortFunc(f.reg.Servers, func(a, b decl.Server) int { return strings.Compare(a.Name, b.Name) })
	f.conn.add("tool", mcpServer("", "find", "other"))
	s := open(t, f.reg, "a", f.opts(&events{}))
	for _, ti := range s.Tools() {
		if ti.Name == decl.ToolFind && ti.Kind != decl.KindDiscovery {
			t.Fatalf("tool_find is %+v, want the discovery tool", ti)
		}
	}
	r := call(t, s, decl.ToolFind, `{"query":"other"}`)
	if !r.OK || r.Kind != decl.KindDiscovery {
		t.Errorf("tool_find call = %+v, want the discovery tool", r)
	}
	// Nor does it enter the pool, where globs, search and explain would
	// find an MCP tool under the runtime's name.
	var pool []string
	for _, pt := range poolOf(t, f.reg).Tools() {
		if pt.Server == "tool" {
			pool = append(pool, pt.Name)
		}
	}
	if !slices.Equal(pool, []string{"tool_other"}) {
		t.Errorf("pool tools of server tool = %v, want [tool_other]", pool)
	}
}
