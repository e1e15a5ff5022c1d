package hostconfig

import (
	"encoding/json"
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

var update = flag.Bool("update", false, "rewrite golden files")

func golden(t *testing.T, path string, got []byte) {
	t.Helper()
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update)", err)
	}
	if diff := cmp.Diff(string(want), string(got)); diff != "" {
		t.Errorf("%s (-want +got):\n%s", path, diff)
	}
}

var launchCases = map[string]Launch{
	"env": {
		Binary:  "/home/me/src/hello/hello",
		Agent:   "helper",
		Workdir: "/home/me/src/hello",
		Env:     []string{"GITHUB_TOKEN", "DOCS_TOKEN", "GITHUB_TOKEN"},
	},
	"plain": {
		Name:   "notes",
		Binary: "/opt/My Agents/bin/notes agent",
		Agent:  "reader",
	},
}

// TestSnippetsGolden prints every host's snippets for a binary with and
// without variables (testdata/snippets/HOST-CASE.txt).
func TestSnippetsGolden(t *testing.T) {
	for _, host := range Formats {
		for name, l := range launchCases {
			t.Run(string(host)+"-"+name, func(t *testing.T) {
				var out, notes strings.Builder
				if err := WriteSnippets(&out, &notes, host, l); err != nil {
					t.Fatal(err)
				}
				if !json.Valid([]byte(out.String())) {
					t.Errorf("stdout is not one JSON document:\n%s", out.String())
				}
				var b strings.Builder
				b.WriteString("-- stderr --\n" + notes.String() + "-- stdout --\n" + out.String())
				golden(t, filepath.Join("testdata", "snippets", string(host)+"-"+name+".txt"), []byte(b.String()))
			})
		}
	}
}

func TestSnippetsRefuse(t *testing.T) {
	for _, c := range []struct {
		l    Launch
		want string
	}{
		{Launch{Binary: "./agent", Agent: "a"}, `the binary path "./agent" is not absolute`},
		{Launch{Binary: "/x/agent"}, "no agent to serve"},
		{Launch{Binary: "/x/agent", Agent: "a", Workdir: "w"}, `the working directory "w" is not absolute`},
		{Launch{Binary: "/x/agent", Agent: "a", Env: []string{"A-B"}}, `"A-B" is not an environment variable name`},
	} {
		if _, err := Snippets(Claude, c.l); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Snippets(%+v) = %v, want %q", c.l, err, c.want)
		}
	}
	if _, err := Snippets("claude-desktop", Launch{Binary: "/x", Agent: "a"}); err == nil || !strings.Contains(err.Error(), `did you mean "claude-code"?`) && !strings.Contains(err.Error(), `did you mean "claude"?`) {
		t.Errorf("unknown host: %v", err)
	}
}

// TestLinksNoGenerator: agent binaries link this package (mcp-config), and
// the runtime never depends on the generator.
func TestLinksNoGenerator(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", ".").CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	for _, pkg := range strings.Fields(string(out)) {
		for _, f := range []string{"github.com/toolgen-dev/toolgen/hcl", "github.com/toolgen-dev/toolgen/templates", "github.com/hashicorp/hcl", "github.com/dave/jennifer", "golang.org/x/tools", "github.com/tailscale/hujson"} {
			if strings.HasPrefix(pkg, f) {
				t.Errorf("hostconfig depends on %s", pkg)
			}
		}
	}
}
