package runtime

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/toolgen-dev/toolgen/internal/mcpconn"
	"github.com/toolgen-dev/toolgen/runtime/decl"
)

// Untrusted servers take exact tool names at run time: a glob in the
// server's or a meta bundle's allow list matches nothing, and is reported
// once per pool with the server and the pattern. With the real
// server-everything over stdio.
func TestUntrustedServerTakesExactNames(t *testing.T) {
	node, args := everything(t)
	reg := &Registry{
		Separator: "__",
		Defaults:  decl.Defaults{ToolTimeout: 30 * time.Second, ResponseMaxBytes: 100000, StartupTimeout: 60 * time.Second},
		Servers: []decl.Server{{Name: "ev", Transport: "stdio", Command: node, Args: args, ProtocolVersion: "2025-11-25",
			Trusted: false, AllowTools: []string{"echo", "get-*"}}},
		Bundles: []decl.Bundle{
			{Name: "ev_star", Mode: "meta", Server: "ev", AllowTools: []string{"*"}},
			{Name: "ev_plain", Mode: "meta", Server: "ev"},
		},
		Agents: []decl.Agent{
			{Name: "star", Use: []decl.Use{{Kind: decl.UseBundle, Name: "ev_star"}}},
			{Name: "plain", Use: []decl.Use{{Kind: decl.UseBundle, Name: "ev_plain"}}},
		},
	}
	ev := &events{}
	mgr := mcpconn.NewManager(ev.logger())
	defer mgr.Close()
	ctx := context.Background()
	s, err := Open(ctx, reg, "star", Options{Logger: ev.logger(), Connector: mcpConnector{m: mgr}})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()

	// allow_tools = ["*"] on the bundle: nothing, not everything
	for _, tool := range []string{"echo", "get-sum", "get-env"} {
		r := call(t, s, decl.ToolMCPCall, `{"server":"ev","tool":"`+tool+`","args":{"message":"x","a":1,"b":2}}`)
		if r.OK || !strings.Contains(r.Error, "not allowed") {
			t.Errorf("star: %s through a glob: %+v", tool, r)
		}
	}
	if out := mustOK(t, call(t, s, decl.ToolMCPList, `{"server":"ev"}`)); !strings.Contains(out, `"total":0`) {
		t.Errorf("star: mcp_list_tools = %s", out)
	}
	ev.requireOne(t, EventUntrustedGlob, "server", "ev", "pattern", "*", "list", "bundle.ev_star allow_tools")
	ev.requireOne(t, EventUntrustedGlob, "server", "ev", "pattern", "get-*", "list", "server.ev allow_tools")

	// the server's own list: "echo" is a name, "get-*" a glob
	if err := s.Switch(ctx, "plain"); err != nil {
		t.Fatal(err)
	}
	if out := mustOK(t, call(t, s, decl.ToolMCPCall, `{"server":"ev","tool":"echo","args":{"message":"exact"}}`)); !strings.Contains(out, "exact") {
		t.Errorf("plain: echo = %s", out)
	}
	if r := call(t, s, decl.ToolMCPCall, `{"server":"ev","tool":"get-sum","args":{"a":1,"b":2}}`); r.OK {
		t.Errorf("plain: get-sum through the server's glob get-*: %+v", r)
	}
	out := mustOK(t, call(t, s, decl.ToolMCPList, `{"server":"ev"}`))
	if !strings.Contains(out, `"total":1`) || !strings.Contains(out, `"echo"`) {
		t.Errorf("plain: mcp_list_tools = %s", out)
	}

	// once: switching back does not repeat the warnings
	if err := s.Switch(ctx, "star"); err != nil {
		t.Fatal(err)
	}
	if n := len(ev.named(EventUntrustedGlob, "pattern", "get-*")); n != 1 {
		t.Errorf("%d warnings for get-*, want 1", n)
	}
	if n := len(ev.named(EventUntrustedGlob, "pattern", "*")); n != 1 {
		t.Errorf("%d warnings for *, want 1", n)
	}
}

// The same rule where a hand-built registry has no lock entries and the
// pool learns the tools live: globs never admit an untrusted server's tool.
func TestUntrustedGlobsMatchNothing(t *testing.T) {
	srv := &decl.Server{Name: "u", AllowTools: []string{"delete_*", "read"}}
	for _, tool := range []string{"delete_all", "read"} {
		trusted := serverExposes(&decl.Server{Name: "t", Trusted: true, AllowTools: srv.AllowTools}, tool)
		untrusted := serverExposes(srv, tool)
		if !trusted || untrusted != (tool == "read") {
			t.Errorf("%s: trusted %v untrusted %v", tool, trusted, untrusted)
		}
	}
	m := &metaScope{}
	m.merge(&decl.Bundle{Name: "b", AllowTools: []string{"*"}})
	if m.permits(srv, "read") {
		t.Error(`a meta bundle's "*" admitted a tool of an untrusted server`)
	}
	// deny lists keep their globs
	srv.DenyTools = []string{"re*"}
	if serverExposes(srv, "read") {
		t.Error("a deny glob of an untrusted server was ignored")
	}
}
