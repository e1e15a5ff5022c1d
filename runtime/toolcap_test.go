package runtime

import (
	"context"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/toolgen-dev/toolgen/internal/mcpconn"
	"github.com/toolgen-dev/toolgen/runtime/decl"
)

// An upstream that lists more tools than the cap (issue 21 item 10) is red
// with the reason in Servers (what status and /api/status show), gives the
// session no tools, and the agent's other server keeps working.
func TestUpstreamOverToolCapIsRed(t *testing.T) {
	echo := buildEchoFixture(t)
	many := filepath.Join(t.TempDir(), "manytools")
	if out, err := exec.Command("go", "build", "-o", many, "../testdata/mcpservers/manytools").CombinedOutput(); err != nil {
		t.Fatalf("building the manytools fixture: %v\n%s", err, out)
	}
	m := mcpconn.NewManager(nil)
	defer m.Close()
	reg := &Registry{
		Package: "p", Separator: "__",
		Defaults: decl.Defaults{ToolTimeout: 10 * time.Second, StartupTimeout: 30 * time.Second, InitConcurrency: 2, MaxDepth: 1},
		Servers: []decl.Server{
			{Name: "echo", Transport: "stdio", Command: echo, Trusted: true},
			{Name: "many", Transport: "stdio", Command: many, Trusted: true,
				Args: []string{"-tools", "10001", "-page-size", "1000"}},
		},
		Agents: []decl.Agent{{Name: "a", Use: []decl.Use{{Kind: decl.UseServer, Name: "echo"}, {Kind: decl.UseServer, Name: "many"}}}},
	}
	ctx := context.Background()
	s, err := Open(ctx, reg, "a", Options{Connector: mcpConnector{m: m}})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()

	want := "tool list over the cap: more than 10000 tools"
	var saw bool
	for _, ss := range s.Servers() {
		switch ss.Name {
		case "many":
			saw = true
			if ss.Health != HealthRed || !strings.Contains(ss.Error, want) || ss.Tools != 0 {
				t.Errorf("many: %+v; want red, %q, no tools", ss, want)
			}
		case "echo":
			if ss.Health != HealthGreen || ss.Tools == 0 {
				t.Errorf("echo: %+v", ss)
			}
		}
	}
	if !saw {
		t.Fatalf("server many missing from Servers(): %+v", s.Servers())
	}
	for _, ti := range s.Tools() {
		if strings.HasPrefix(ti.Name, "many__") {
			t.Fatalf("tool %s from a server over the cap", ti.Name)
		}
	}
	if r := s.Call(ctx, "echo__echo", []byte(`{"text":"still here"}`)); !r.OK || r.Result != "still here" {
		t.Errorf("echo__echo = %+v", r)
	}
	if r := s.Call(ctx, "many__t000001", []byte(`{}`)); r.OK {
		t.Errorf("many__t000001 = %+v, want an error", r)
	}
}
