package runtime

import (
	"strings"
	"testing"
)

// A meta bundle is no way around tools.allowed: the meta tools reach only
// the server tools the agent's own allow list admits.
func TestMetaToolsHonourAllowed(t *testing.T) {
	f := newFixture(Agent{Name: "a", Use: []Use{{Kind: UseBundle, Name: "docs_meta"}}, Allowed: []string{"docs__search_docs"}})
	f.conn.add("docs", mcpServer("Docs server.", "search_docs", "delete_all"))
	s := open(t, f.reg, "a", f.opts(&events{}))
	mustOK(t, call(t, s, ToolMCPCall, `{"server":"docs","tool":"search_docs","args":{}}`))
	r := call(t, s, ToolMCPCall, `{"server":"docs","tool":"delete_all","args":{}}`)
	if r.OK || !strings.Contains(r.Error, "not allowed") {
		t.Errorf("mcp_call_tool reached a tool outside tools.allowed: %+v", r)
	}
	list := mustOK(t, call(t, s, ToolMCPList, `{"server":"docs"}`))
	if strings.Contains(list, "delete_all") || !strings.Contains(list, "search_docs") {
		t.Errorf("mcp_list_tools: %s", list)
	}
	if r := call(t, s, ToolMCPSchema, `{"server":"docs","tool":"delete_all"}`); r.OK {
		t.Errorf("mcp_get_tool_schema described a tool outside tools.allowed: %+v", r)
	}

	// Without tools.allowed the bundle's own scope decides.
	g := newFixture(Agent{Name: "a", Use: []Use{{Kind: UseBundle, Name: "docs_meta"}}})
	g.conn.add("docs", mcpServer("Docs server.", "search_docs", "delete_all"))
	s2 := open(t, g.reg, "a", g.opts(&events{}))
	mustOK(t, call(t, s2, ToolMCPCall, `{"server":"docs","tool":"delete_all","args":{}}`))
}
