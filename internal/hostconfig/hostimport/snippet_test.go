package hostimport

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/tailscale/hujson"

	"github.com/toolgen-dev/toolgen/internal/hostconfig"
)

// TestSnippetsReadBack reads each JSON snippet that hostconfig.Snippets
// prints back as its host would, with Import: the server it declares runs the binary with the
// serve arguments, and every variable is a placeholder, never a value.
func TestSnippetsReadBack(t *testing.T) {
	l := hostconfig.Launch{
		Binary:  "/home/me/src/hello/hello",
		Agent:   "helper",
		Workdir: "/home/me/src/hello",
		Env:     []string{"GITHUB_TOKEN", "DOCS_TOKEN", "GITHUB_TOKEN"},
	}
	files := map[hostconfig.Format]string{hostconfig.Claude: "claude_desktop_config.json", hostconfig.ClaudeCode: ".mcp.json", hostconfig.VSCode: ".vscode/mcp.json", hostconfig.Cursor: ".cursor/mcp.json"}
	for _, host := range hostconfig.Formats {
		snips, err := hostconfig.Snippets(host, l)
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
		if host == hostconfig.VSCode {
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
		res, diags := Import([]File{{Name: files[host], Data: []byte(snips[0].Text)}}, Options{})
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
