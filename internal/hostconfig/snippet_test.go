package hostconfig

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tailscale/hujson"
)

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
				var b strings.Builder
				if err := WriteSnippets(&b, host, l); err != nil {
					t.Fatal(err)
				}
				golden(t, filepath.Join("testdata", "snippets", string(host)+"-"+name+".txt"), []byte(b.String()))
			})
		}
	}
}

// TestSnippetsAreHostFiles reads each JSON snippet back as its host
// would, with Import: the server it declares runs the binary with the
// serve arguments, and every variable is a placeholder, never a value.
func TestSnippetsAreHostFiles(t *testing.T) {
	l := launchCases["env"]
	files := map[Format]string{Claude: "claude_desktop_config.json", ClaudeCode: ".mcp.json", VSCode: ".vscode/mcp.json", Cursor: ".cursor/mcp.json"}
	for _, host := range Formats {
		snips, err := Snippets(host, l)
		if err != nil {
			t.Fatal(err)
		}
		var raw struct {
			MCPServers map[string]stdioEntry `json:"mcpServers"`
			Servers    map[string]stdioEntry `json:"servers"`
		}
		if err := json.Unmarshal([]byte(snips[0].Text), &raw); err != nil {
			t.Fatalf("%s: not JSON: %v\n%s", host, err, snips[0].Text)
		}
		entry, ok := raw.MCPServers["helper"]
		if host == VSCode {
			entry, ok = raw.Servers["helper"]
		}
		if !ok {
			t.Fatalf("%s: no server named helper:\n%s", host, snips[0].Text)
		}
		if entry.Command != l.Binary || strings.Join(entry.Args, " ") != "serve --stdio --agent helper --workdir /home/me/src/hello" {
			t.Errorf("%s: runs %q %q", host, entry.Command, entry.Args)
		}
		if len(entry.Env) != 2 || !strings.Contains(entry.Env["GITHUB_TOKEN"], "GITHUB_TOKEN") {
			t.Errorf("%s: env %v", host, entry.Env)
		}
		// The host's own syntax for a variable is what Import reads back
		// as that variable (Claude Desktop has none: a placeholder).
		res, diags := Import([]File{{Name: files[host], Data: []byte(snips[0].Text)}}, ImportOptions{})
		if diags.HasErrors() {
			t.Fatalf("%s: %v", host, diags)
		}
		if len(res.Variables) != 2 || res.Variables[0].Name != "DOCS_TOKEN" || res.Variables[1].Name != "GITHUB_TOKEN" {
			t.Errorf("%s: read back as variables %v", host, res.Variables)
		}
		if _, err := hujson.Parse([]byte(snips[0].Text)); err != nil {
			t.Error(err)
		}
	}
}

type stdioEntry struct {
	Command string            `json:"command"`
	Args    []string          `json:"args"`
	Env     map[string]string `json:"env"`
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
	if _, err := Snippets("claude-desktop", Launch{Binary: "/x", Agent: "a"}); err == nil || !strings.Contains(err.Error(), `Did you mean "claude-code"?`) && !strings.Contains(err.Error(), `Did you mean "claude"?`) {
		t.Errorf("unknown host: %v", err)
	}
}
