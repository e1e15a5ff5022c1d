package sessionagent_test

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/toolgen-dev/toolgen/runtime/decl"
	"github.com/toolgen-dev/toolgen/runtime/internal/sessionagent"
)

// /api/status agrees with tools and status about a server whose tool list
// is over the cap (issue 21 item 10): red with the reason, no tools.
func TestStatusShowsServerOverToolCapRed(t *testing.T) {
	many := filepath.Join(t.TempDir(), "manytools")
	if out, err := exec.Command("go", "build", "-o", many, "../../../testdata/mcpservers/manytools").CombinedOutput(); err != nil {
		t.Fatalf("building the manytools fixture: %v\n%s", err, out)
	}
	reg := registry()
	reg.Servers = []decl.Server{{Name: "many", Transport: "stdio", Command: many, Trusted: true,
		Args: []string{"-tools", "10001", "-page-size", "1000"}}}
	reg.Agents[0].Use = append(reg.Agents[0].Use, decl.Use{Kind: decl.UseServer, Name: "many"})
	st := sessionagent.New(reg, open(t, reg, "coder"), nil).Status()
	if len(st.Servers) != 1 {
		t.Fatalf("servers = %+v", st.Servers)
	}
	s := st.Servers[0]
	if s.Name != "many" || s.Health != "red" || s.Tools != 0 || !strings.Contains(s.Error, "tool list over the cap: more than 10000 tools") {
		t.Errorf("server = %+v; want many red over the cap, no tools", s)
	}
	for _, tl := range st.Tools {
		if strings.HasPrefix(tl.Name, "many__") {
			t.Fatalf("tool %s listed from a server over the cap", tl.Name)
		}
	}
	if len(st.Tools) == 0 {
		t.Error("the agent's own tools are missing")
	}
}
