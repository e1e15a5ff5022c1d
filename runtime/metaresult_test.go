package runtime

import (
	"context"
	"encoding/json"
	"log/slog"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/toolgen-dev/toolgen/runtime/decl"
)

// seekerFixture: a discovery agent that also offers output_read and the
// final report, as the seed scenarios' agents do.
func seekerFixture(t *testing.T, maxBytes int) (*Session, *fixture) {
	t.Helper()
	f := newFixture(decl.Agent{Name: "d", Discovery: true,
		Use: append(useTools("registry_*", "entities_*", "summarize", "read_file", "github__*"),
			useRuntime(decl.ToolOutputRead, decl.ToolFinalReport)...),
		Allowed: []string{"registry_*", "entities_get", "summarize", "read_file", "github__*", "tool_*", decl.ToolMCPCall,
			decl.ToolOutputRead, decl.ToolFinalReport}})
	if maxBytes > 0 {
		f.reg.Defaults.ResponseMaxBytes = maxBytes
	}
	return open(t, f.reg, "d", f.opts(&events{})), f
}

// Issue 21 item 13: a tool that is always offered (output_read) failed the
// whole batch with `tool "output_read" not found; did you mean
// "output_read"?`; the others load and the skipped one is reported.
func TestToolLoadSkipsAlwaysOfferedTools(t *testing.T) {
	s, _ := seekerFixture(t, 0)
	out := mustOK(t, call(t, s, decl.ToolLoad, `{"names":["registry_list","output_read","agent__final_report","output_read"]}`))
	var res struct {
		Loaded  []struct{ Name string }
		Skipped []struct{ Name, Reason string }
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatal(err)
	}
	if len(res.Loaded) != 1 || res.Loaded[0].Name != "registry_list" {
		t.Errorf("loaded: %s", out)
	}
	var skipped []string
	for _, sk := range res.Skipped {
		skipped = append(skipped, sk.Name)
		if !strings.Contains(sk.Reason, "call it directly") {
			t.Errorf("skipped %s without saying why: %q", sk.Name, sk.Reason)
		}
	}
	if diff := cmp.Diff([]string{"output_read", "agent__final_report"}, skipped); diff != "" {
		t.Errorf("skipped (-want +got):\n%s", diff)
	}
	mustOK(t, call(t, s, "registry_list", `{}`))
	// an unknown name still loads nothing (seed: Load non-existent tool)
	if r := call(t, s, decl.ToolLoad, `{"names":["output_read","registry_next","no_such_tool"]}`); r.OK || !strings.Contains(r.Error, "othing was loaded") {
		t.Errorf("unknown name: %+v", r)
	}
}

// Issue 21 item 14: mcp_call_tool said "load it with tool_load first" for
// tools that can never be loaded; it gives a direct call's answer.
func TestMCPCallToolAnswersAsADirectCall(t *testing.T) {
	s, _ := seekerFixture(t, 0)
	for _, name := range []string{
		"entities_delete",     // outside tools.allowed
		"graph_traverse",      // not in tools.use
		"github__delete_repo", // denied by the server
		"scraper__post_form",  // an untrusted server's
		"no_such_tool",        // unknown
		"registry_lst",        // a typo
	} {
		direct := call(t, s, name, `{}`)
		meta := call(t, s, decl.ToolMCPCall, `{"tool":"`+name+`","args":{}}`)
		if direct.OK || meta.OK {
			t.Fatalf("%s: direct %+v, meta %+v", name, direct, meta)
		}
		if meta.Error != direct.Error {
			t.Errorf("%s:\nmcp_call_tool: %s\n direct call: %s", name, meta.Error, direct.Error)
		}
		if strings.Contains(meta.Error, decl.ToolLoad) {
			t.Errorf("%s can never be loaded, yet: %s", name, meta.Error)
		}
	}
	// a loadable tool is still told to load
	if r := call(t, s, decl.ToolMCPCall, `{"tool":"registry_next"}`); r.OK || !strings.Contains(r.Error, decl.ToolLoad) {
		t.Errorf("loadable tool: %+v", r)
	}
	// server and tool given apart, outside any meta scope: a tool the
	// agent may load is told so; anything else hears of the scope
	if r := call(t, s, decl.ToolMCPCall, `{"server":"github","tool":"get_file_history"}`); r.OK || r.Error != call(t, s, "github__get_file_history", `{}`).Error {
		t.Errorf("server+tool: %+v", r)
	}
	if r := call(t, s, decl.ToolMCPCall, `{"server":"scraper","tool":"post_form"}`); r.OK || !strings.Contains(r.Error, "not reachable through meta tools") {
		t.Errorf("server+tool outside the scope: %+v", r)
	}
}

// Issue 21 item 15: with a small response_max_bytes, tool_load's own
// result was spilled and the model never saw the schemas it loaded. The
// discovery and browse tools are never spilled or cut; other tools are.
func TestMetaToolResultsAreNotSpilled(t *testing.T) {
	s, _ := seekerFixture(t, 64)
	out := mustOK(t, call(t, s, decl.ToolLoad, `{"names":["entities_get","registry_list","summarize"]}`))
	var res struct {
		Loaded []struct {
			Name        string
			InputSchema json.RawMessage `json:"input_schema"`
		}
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil || len(res.Loaded) != 3 || len(res.Loaded[0].InputSchema) == 0 {
		t.Fatalf("tool_load over response_max_bytes: %v: %s", err, out)
	}
	for _, c := range []struct{ tool, args, want string }{
		{decl.ToolFind, `{"query":"entity registry tasks summarize"}`, `"results":[`},
		{decl.ToolDescribe, `{"name":"entities_get"}`, `"input_schema":{`},
		{decl.ToolActive, `{}`, `"count":3`},
	} {
		if out := mustOK(t, call(t, s, c.tool, c.args)); !strings.Contains(out, c.want) || !json.Valid([]byte(out)) {
			t.Errorf("%s over response_max_bytes: %s", c.tool, out)
		}
	}
	// a tool's own large answer is still spilled
	big := strings.Repeat("x", 500)
	if out := mustOK(t, call(t, s, "summarize", `{"text":"`+big+`"}`)); strings.Contains(out, big) {
		t.Errorf("a large result was not spilled: %.100s", out)
	}
}

// Issue 21 item 16: a chained alias (e2 → e → summarize, which the spec
// resolves to two aliases of summarize) was listed twice in tools/list,
// and tool_find showed the real name where tools/list showed the alias.
// One tool is shown under one name everywhere; every name answers calls.
func TestChainedAliasListedOnce(t *testing.T) {
	chain := []decl.Alias{{Name: "e", Target: "summarize"}, {Name: "e2", Target: "summarize"}}
	f := newFixture(
		decl.Agent{Name: "direct", Use: useTools("summarize", "registry_list"), Aliases: chain},
		decl.Agent{Name: "seeker", Discovery: true, Use: useTools("summarize", "registry_list"), Aliases: chain})
	s := open(t, f.reg, "direct", f.opts(&events{}))
	if diff := cmp.Diff([]string{"e", "registry_list"}, poolNames(s)); diff != "" {
		t.Errorf("tools/list (-want +got):\n%s", diff)
	}
	for _, name := range []string{"e", "e2", "summarize"} {
		if out := mustOK(t, call(t, s, name, `{"n":1}`)); out != `{"n":1}` {
			t.Errorf("%s: %s", name, out)
		}
	}
	if hits := s.Find("summarize a document", 5); len(hits) == 0 || hits[0].Name != "e" {
		t.Errorf("find shows %+v; tools/list shows e", hits)
	}

	d := open(t, f.reg, "seeker", f.opts(&events{}))
	for _, c := range []struct{ tool, args, want string }{
		{decl.ToolFind, `{"query":"summarize a document"}`, `"name":"e",`},
		{decl.ToolDescribe, `{"name":"summarize"}`, `"name":"e"`},
		{decl.ToolLoad, `{"names":["e2"]}`, `"loaded":[{"name":"e",`},
		{decl.ToolLoad, `{"names":["summarize"]}`, `"already_active":["e"]`},
		{decl.ToolActive, `{}`, `"tools":[{"name":"e",`},
	} {
		if out := mustOK(t, call(t, d, c.tool, c.args)); !strings.Contains(out, c.want) {
			t.Errorf("%s %s: %s; want %s", c.tool, c.args, out, c.want)
		}
	}
	if diff := cmp.Diff([]string{"e"}, poolNames(d)); diff != "" {
		t.Errorf("seeker's tools/list after the load (-want +got):\n%s", diff)
	}
	x, err := Explain(f.reg, ExplainOptions{Agent: "direct"})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tl := range x.Tools {
		if tl.Status == StatusCallable && tl.Kind != decl.KindInternal {
			names = append(names, tl.Name)
		}
	}
	if diff := cmp.Diff([]string{"e", "registry_list"}, names); diff != "" {
		t.Errorf("explain (-want +got):\n%s", diff)
	}
}

// Issue 21 item 17: a host-supplied Options.Memory was shared across a
// switch, under keys that did not say which agent wrote them: after a
// switch the host read the last agent's report as the new one's. Each
// agent has its own keys (MemoryKey).
func TestHostMemoryIsPerAgent(t *testing.T) {
	report := useRuntime(decl.ToolFinalReport, decl.ToolTaskStatus)
	f := newFixture(decl.Agent{Name: "coder", Use: report}, decl.Agent{Name: "writer", Use: report})
	opts := f.opts(&events{})
	mem := newMemStore()
	opts.Memory = mem
	s := open(t, f.reg, "coder", opts)
	mustOK(t, call(t, s, decl.ToolFinalReport, `{"status":"success","content":"coded"}`))
	mustOK(t, call(t, s, decl.ToolTaskStatus, `{"status":"completed"}`))
	if err := s.Switch(context.Background(), "writer"); err != nil {
		t.Fatal(err)
	}
	if v, ok := s.st.Load().memory.Get(MemoryFinalReport); ok {
		t.Errorf("writer sees coder's final report: %s", v)
	}
	mustOK(t, call(t, s, decl.ToolFinalReport, `{"status":"partial","content":"written"}`))
	for agent, want := range map[string]string{"coder": `"content":"coded"`, "writer": `"content":"written"`} {
		if got, _ := mem.Get(MemoryKey(agent, MemoryFinalReport)); !strings.Contains(got, want) {
			t.Errorf("%s's final report in the host's memory = %q, want %s", agent, got, want)
		}
	}
	if _, ok := mem.Get(MemoryKey("writer", MemoryTaskStatus)); ok {
		t.Error("writer has coder's task status")
	}
	if got, _ := mem.Get(MemoryKey("coder", MemoryTaskStatus)); !strings.Contains(got, "completed") {
		t.Errorf("coder's task status = %q", got)
	}
}

// Issue 21 item 18: a name or glob in tools.use that matched nothing was
// skipped at run time without an event; it is a tool.unmatched warning,
// once per pool.
func TestUnmatchedUseEntryIsAnEvent(t *testing.T) {
	f := newFixture(decl.Agent{Name: "a", Use: []decl.Use{
		{Kind: decl.UseGlob, Name: "nothing_*"},
		{Kind: decl.UseGlob, Name: "github__search_issues"}, // its server connects, and lacks it
		{Kind: decl.UseGlob, Name: "summ*"},
	}})
	ev := &events{}
	open(t, f.reg, "a", f.opts(ev))
	open(t, f.reg, "a", f.opts(ev)) // a second session says nothing new
	for _, pattern := range []string{"nothing_*", "github__search_issues"} {
		got := ev.named(EventToolUnmatched, "pattern", pattern)
		if len(got) != 1 {
			t.Errorf("%s: %d tool.unmatched events, want 1", pattern, len(got))
			continue
		}
		if got[0].Level != slog.LevelWarn || got[0].Attrs["agent"] != "a" || !strings.HasPrefix(got[0].Attrs["entry"], "tools.use[") {
			t.Errorf("%s: %+v", pattern, got[0])
		}
	}
	if got := ev.named(EventToolUnmatched, "pattern", "summ*"); len(got) != 0 {
		t.Errorf("a glob that matched: %+v", got)
	}
}
