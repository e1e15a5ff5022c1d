package hostimport

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/hashicorp/hcl/v2"
	"github.com/tailscale/hujson"

	"github.com/toolgen-dev/toolgen/internal/hostconfig"
)

var update = flag.Bool("update", false, "rewrite golden files")

// importCases are the fixtures under testdata/import: one directory per
// case, the host files named relative to it.
var importCases = []struct {
	dir   string
	files []string
}{
	{"claude", []string{"claude_desktop_config.json"}},
	{"claude-code", []string{".mcp.json"}},
	{"vscode", []string{".vscode/mcp.json"}},
	{"cursor", []string{".cursor/mcp.json"}},
	{"merge", []string{"claude_desktop_config.json", ".cursor/mcp.json"}},
}

func readCase(t *testing.T, dir string, names []string) []File {
	t.Helper()
	var files []File
	for _, n := range names {
		b, err := os.ReadFile(filepath.Join("testdata", "import", dir, n))
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, File{Name: n, Data: b})
	}
	return files
}

// shortDiags renders diagnostics one a line, as `toolgen validate
// --format=short` does.
func shortDiags(diags hcl.Diagnostics) string {
	var b strings.Builder
	for _, d := range diags {
		if d.Subject != nil {
			fmt.Fprintf(&b, "%s:%d:%d: ", d.Subject.Filename, d.Subject.Start.Line, d.Subject.Start.Column)
		}
		sev := "error"
		if d.Severity == hcl.DiagWarning {
			sev = "warning"
		}
		fmt.Fprintf(&b, "%s: %s: %s\n", sev, d.Summary, d.Detail)
	}
	return b.String()
}

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

// TestImportGolden imports each fixture and compares the spec, the
// diagnostics and the note with testdata/import/CASE/want.*.
func TestImportGolden(t *testing.T) {
	for _, c := range importCases {
		t.Run(c.dir, func(t *testing.T) {
			res, diags := Import(readCase(t, c.dir, c.files), Options{})
			if diags.HasErrors() {
				t.Fatalf("errors:\n%s", shortDiags(diags))
			}
			golden(t, filepath.Join("testdata", "import", c.dir, "want.hcl"), res.Spec)
			var note bytes.Buffer
			if err := res.WriteNote(&note); err != nil {
				t.Fatal(err)
			}
			golden(t, filepath.Join("testdata", "import", c.dir, "want.txt"), []byte(shortDiags(diags)+"\n"+note.String()))

			// The same input gives the same bytes.
			again, _ := Import(readCase(t, c.dir, c.files), Options{})
			if !bytes.Equal(again.Spec, res.Spec) {
				t.Error("a second import wrote different bytes")
			}
		})
	}
}

// TestImportCopiesNoSecret checks, for every fixture, that no literal
// value of env or headers, no URL password or credential query value and
// no marked credential in args reaches the spec, the note or a diagnostic.
func TestImportCopiesNoSecret(t *testing.T) {
	for _, c := range importCases {
		t.Run(c.dir, func(t *testing.T) {
			files := readCase(t, c.dir, c.files)
			res, diags := Import(files, Options{})
			if diags.HasErrors() {
				t.Fatalf("errors:\n%s", shortDiags(diags))
			}
			var note bytes.Buffer
			res.WriteNote(&note)
			out := string(res.Spec) + note.String() + shortDiags(diags)
			// Every credential in the fixtures is marked FAKE.
			if strings.Contains(out, "FAKE") {
				t.Errorf("a credential reached the output:\n%s", out)
			}
			n := 0
			for _, f := range files {
				for _, lit := range literalEnvValues(t, f.Data) {
					n++
					if strings.Contains(string(res.Spec), strconv.Quote(lit)) {
						t.Errorf("env value %q was copied into the spec", lit)
					}
				}
			}
			if c.dir != "vscode" && n == 0 {
				t.Error("the fixture has no literal env value to check")
			}
		})
	}
}

// literalEnvValues are the env values of every server written without a
// reference.
func literalEnvValues(t *testing.T, src []byte) []string {
	std, err := hujson.Standardize(bytes.Clone(src))
	if err != nil {
		t.Fatal(err)
	}
	var f map[string]map[string]struct {
		Env map[string]any `json:"env"`
	}
	var top map[string]json.RawMessage
	if err := json.Unmarshal(std, &top); err != nil {
		t.Fatal(err)
	}
	delete(top, "inputs")
	delete(top, "globalShortcut")
	b, _ := json.Marshal(top)
	if err := json.Unmarshal(b, &f); err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, servers := range f {
		for _, s := range servers {
			for _, v := range s.Env {
				if str, ok := v.(string); ok && !strings.Contains(str, "${") {
					out = append(out, str)
				}
			}
		}
	}
	return out
}

func TestImportErrors(t *testing.T) {
	for _, c := range []struct {
		name, file, src string
		want            string
	}{
		{"invalid JSON", "x.json", "{\n  \"mcpServers\": {\n    \"a\": {\"command\": \"x\",,}\n  }\n}", `x.json:3:26: error: Invalid JSON: x.json is not JSON: invalid character ',' at start of value.`},
		{"array", "x.json", `[1]`, `x.json:1:1: error: Not a host configuration: x.json holds an array; an MCP host configuration is a JSON object with "mcpServers" (Claude Desktop, Claude Code, Cursor) or "servers" (VS Code).`},
		{"misspelt key", "x.json", `{"mcp_servers": {}}`, `x.json:1:2: error: Not a host configuration: x.json has no "mcpServers" object (Claude Desktop, Claude Code, Cursor) or "servers" object (VS Code). It has "mcp_servers"; did you mean "mcpServers"?`},
		{"servers not an object", "x.json", `{"mcpServers": []}`, `x.json:1:16: error: Not a host configuration: "mcpServers" in x.json is an array; it must be an object mapping server names to servers.`},
		{"too deep", "x.json", `{"mcpServers": {"a": ` + strings.Repeat("[", 100) + strings.Repeat("]", 100) + `}}`, `x.json:1:84: error: Nesting too deep: x.json nests more than 64 levels of objects and arrays here; no MCP host file does, so it is not read.`},
		{"nothing to import", "x.json", `{"mcpServers": {"a": {"disabled": true, "command": "x"}}}`, `x.json:1:23: warning: Server not imported: The server "a" is disabled in x.json.
error: No servers to import: No server in x.json could be imported.`},
	} {
		t.Run(c.name, func(t *testing.T) {
			res, diags := Import([]File{{Name: c.file, Data: []byte(c.src)}}, Options{})
			if res != nil || !diags.HasErrors() {
				t.Fatalf("want an error, got %v", diags)
			}
			if diff := cmp.Diff(c.want+"\n", shortDiags(diags)); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestPortableName(t *testing.T) {
	for in, want := range map[string]string{
		"github":                      "github",
		"brave search":                "brave_search",
		"my.local-server":             "my_local-server",
		"@org/server":                 "org_server",
		"über":                        "ber",
		"!!!":                         "server",
		strings.Repeat("a", 70):       strings.Repeat("a", 64),
		"a b  c":                      "a_b_c",
		"already__fine":               "already__fine",
		"___":                         "___",
		"trailing ":                   "trailing",
		"with/slash and.dot":          "with_slash_and_dot",
		"x" + strings.Repeat("é", 40): "x",
	} {
		if got := portableName(in); got != want {
			t.Errorf("portableName(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestSplitRefs(t *testing.T) {
	type p struct {
		Lit, Kind, Name string
		Def             bool
	}
	flat := func(ps []piece) []p {
		var out []p
		for _, x := range ps {
			if x.ref == nil {
				out = append(out, p{Lit: x.lit})
				continue
			}
			out = append(out, p{Kind: []string{"env", "input", "editor"}[x.ref.kind], Name: x.ref.name, Def: x.ref.hasDefault})
		}
		return out
	}
	for in, want := range map[string][]p{
		"plain":                 {{Lit: "plain"}},
		"Bearer ${env:TOKEN}":   {{Lit: "Bearer "}, {Kind: "env", Name: "TOKEN"}},
		"${input:api-key}":      {{Kind: "input", Name: "api-key"}},
		"${API:-https://x}/mcp": {{Kind: "env", Name: "API", Def: true}, {Lit: "/mcp"}},
		"${workspaceFolder}/a":  {{Kind: "editor", Name: "workspaceFolder"}, {Lit: "/a"}},
		"${env:bad name}":       {{Kind: "editor", Name: "env:bad name"}},
		"open ${ and more":      {{Lit: "open ${ and more"}},
		"${A}${B}":              {{Kind: "env", Name: "A"}, {Kind: "env", Name: "B"}},
		"${config:x.y} $HOME":   {{Kind: "editor", Name: "config:x.y"}, {Lit: " $HOME"}},
	} {
		if diff := cmp.Diff(want, flat(splitRefs(in))); diff != "" {
			t.Errorf("splitRefs(%q) (-want +got):\n%s", in, diff)
		}
	}
}

func TestRedactArg(t *testing.T) {
	for _, c := range []struct{ prev, arg, want string }{
		{"", "postgresql://admin:pw@localhost/db", "postgresql://admin:<redacted>@localhost/db"},
		{"", "s://a@b:c@h/x@y", "s://a@b:<redacted>@h/x@y"},
		{"", "//u:p@h", "//u:<redacted>@h"},
		{"", "--api-key=abc", "--api-key=<redacted>"},
		{"--token", "abc", "<redacted>"},
		{"", "ghp_0123456789abcdefABCDEF", "<redacted>"},
		{"", "Xk29fj2LqP0z7Tq8Rw3mNc5V", "<redacted>"},
		{"", "@modelcontextprotocol/server-postgres", ""},
		{"", "/Users/me/Projects2025/SomeDirectory", ""},
		{"", "--local-timezone=America/Los_Angeles", ""},
		{"--port", "8080", ""},
		{"", "https://example.com/x", ""},
		{"-y", "server-perplexity-ask", ""},
	} {
		got, _ := redactArg(c.prev, c.arg)
		if got != c.want {
			t.Errorf("redactArg(%q, %q) = %q, want %q", c.prev, c.arg, got, c.want)
		}
	}
}

func TestEnvName(t *testing.T) {
	for in, want := range map[string]string{
		"github-token": "GITHUB_TOKEN", "perplexity.key": "PERPLEXITY_KEY", "2fa": "V_2FA",
		"my--server": "MY_SERVER", "X-API-Key": "X_API_KEY", "": "V_",
	} {
		if got := envName(in); got != want {
			t.Errorf("envName(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestDetect(t *testing.T) {
	for _, c := range []struct {
		path string
		keys []string
		want hostconfig.Format
	}{
		{"/home/me/.config/Claude/claude_desktop_config.json", nil, hostconfig.Claude},
		{"proj/.mcp.json", nil, hostconfig.ClaudeCode},
		{"proj/.vscode/mcp.json", nil, hostconfig.VSCode},
		{"/home/me/.cursor/mcp.json", nil, hostconfig.Cursor},
		{"exported.json", []string{"inputs", "servers"}, hostconfig.VSCode},
		{"exported.json", []string{"mcpServers"}, hostconfig.ClaudeCode},
	} {
		got, _, ok := detect(c.path, c.keys)
		if !ok || got != c.want {
			t.Errorf("detect(%q, %q) = %q, %v; want %q", c.path, c.keys, got, ok, c.want)
		}
	}
	if _, _, ok := detect("x.json", []string{"other"}); ok {
		t.Error("a file with neither key was given a format")
	}
}

// TestImportDiagnosticsRender renders Import's diagnostics with source
// snippets, as toolgen does, from Sources.
func TestImportDiagnosticsRender(t *testing.T) {
	files := readCase(t, "claude-code", []string{".mcp.json"})
	_, diags := Import(files, Options{})
	var b strings.Builder
	if err := hcl.NewDiagnosticTextWriter(&b, Sources(files), 100, false).WriteDiagnostics(diags); err != nil {
		t.Fatal(err)
	}
	want := `Warning: Unknown field

  on .mcp.json line 39:
  39:       "typ": "stdio",

Claude Code does not document "typ" for a server; it is not imported. Did you mean "type"?`
	if !strings.Contains(b.String(), want) {
		t.Errorf("rendered:\n%s\nwant it to contain:\n%s", b.String(), want)
	}
}

// TestImportEntries covers one entry shape at a time: what the spec gets
// and what the warnings say.
func TestImportEntries(t *testing.T) {
	for _, c := range []struct {
		name, file, src string
		spec            []string // lines the spec has
		diags           string   // the warnings, short form
	}{
		{
			name: "duplicate server: the last wins",
			file: ".mcp.json", src: `{"mcpServers": {"a": {"command": "one"}, "a": {"command": "two"}}}`,
			spec:  []string{`command   = "two"`},
			diags: `.mcp.json:1:17: warning: Duplicate server: The server "a" is declared again at line 1 of .mcp.json; hosts use the last one, so this one is not imported.`,
		},
		{
			name: "misspelt top-level key",
			file: ".vscode/mcp.json", src: `{"servers": {"a": {"type": "stdio", "command": "x"}}, "server": {}}`,
			spec:  []string{`command   = "x"`},
			diags: `.vscode/mcp.json:1:55: warning: Unknown field: VS Code does not use the top-level field "server" in .vscode/mcp.json; it is not imported. Did you mean "servers"?`,
		},
		{
			name: "type spellings",
			file: ".mcp.json", src: `{"mcpServers": {"a": {"type": "streamable-http", "url": "https://a.example/mcp"}, "b": {"type": "stdoi", "command": "b"}}}`,
			spec:  []string{`transport = "http"`, `transport = "stdio"`},
			diags: `.mcp.json:1:97: warning: Unknown server type: "stdoi" is not a server type toolgen knows (stdio, http, sse); the transport is taken from the entry's fields. Did you mean "stdio"?`,
		},
		{
			name: "quoted command line",
			file: "x.json", src: `{"mcpServers": {"a": {"command": "sh -c 'echo hi'"}, "b": {"command": "b"}}}`,
			diags: `x.json:1:34: warning: Server not imported: The command of server "a" is a shell command line with quotes; toolgen runs no shell. Put the program in command and each argument in args.`,
		},
		{
			name: "fields of the other transport",
			file: ".mcp.json", src: `{"mcpServers": {"a": {"type": "http", "url": "https://a.example/mcp", "env": {"X": "1"}}}}`,
			spec:  []string{`url       = "https://a.example/mcp"`},
			diags: `.mcp.json:1:71: warning: Field not imported: The http transport does not use "env"; the server "a" is imported without it.`,
		},
		{
			name: "URL without a scheme toolgen can use",
			file: ".mcp.json", src: `{"mcpServers": {"a": {"type": "http", "url": "ws://a.example/mcp"}, "b": {"command": "b"}}}`,
			diags: `.mcp.json:1:46: warning: Server not imported: The url "ws://a.example/mcp" of server "a" is not an absolute http or https URL.`,
		},
		{
			name: "URL with an editor variable",
			file: ".vscode/mcp.json", src: `{"servers": {"a": {"url": "${workspaceFolder}/x"}, "b": {"command": "b"}}}`,
			diags: `.vscode/mcp.json:1:27: warning: Server not imported: The url of server "a" uses the editor variable ${workspaceFolder}, which has no value outside the editor.`,
		},
		{
			name: "URL credentials",
			file: ".mcp.json", src: `{"mcpServers": {"my api": {"url": "https://bob:pw@a.example/mcp?token=t&lang=en#top"}}}`,
			spec:  []string{`url       = "https://bob:${env("MY_API_PASSWORD")}@a.example/mcp?token=${env("MY_API_TOKEN")}&lang=en#top"`},
			diags: `.mcp.json:1:17: warning: Server renamed: The server "my api" is imported as "my_api": "my api" is not a portable name (1 to 64 letters, digits, _ or -).`,
		},
		{
			name: "headers: credentials by name or shape, others copied",
			file: ".mcp.json", src: `{"mcpServers": {"g": {"url": "https://g.example/mcp", "headers": {"X-Goog-Api-Key": "k", "Accept": "text/event-stream", "X-Request-Id": "0f8fad5b-d9cb-469f-a165-70867728950e", "X-Tenant": "${env:TENANT}"}}}}`,
			spec: []string{`"X-Goog-Api-Key" = env("G_GOOG_API_KEY")`, `Accept           = "text/event-stream"`, `"X-Request-Id"   = env("G_REQUEST_ID")`, `"X-Tenant"       = env("TENANT")`},
		},
		{
			name: "null env value",
			file: ".vscode/mcp.json", src: `{"servers": {"a": {"command": "a", "env": {"DROP": null, "KEEP": "1"}}}}`,
			spec:  []string{`KEEP = env("KEEP")`},
			diags: `.vscode/mcp.json:1:52: warning: Field not imported: env "DROP" of server "a" is null (VS Code: remove the variable); toolgen starts servers with only the variables they declare, so it is left out.`,
		},
		{
			name: "names a reference cannot take",
			file: ".mcp.json", src: `{"mcpServers": {"0": {"command": "a"}, "-x": {"command": "b"}}}`,
			spec: []string{`server "mcp_0" {`, `server "mcp_-x" {`, `use = [server.mcp_0, server.mcp_-x]`},
			diags: `.mcp.json:1:17: warning: Server renamed: The server "0" is imported as "mcp_0": a reference (server.NAME) needs a name that starts with a letter or _, not "0".
.mcp.json:1:40: warning: Server renamed: The server "-x" is imported as "mcp_-x": a reference (server.NAME) needs a name that starts with a letter or _, not "-".`,
		},
		{
			name: "two servers, one Go name",
			file: ".mcp.json", src: `{"mcpServers": {"my-server": {"command": "a"}, "myServer": {"command": "b"}}}`,
			spec:  []string{`server "my-server" {`, `server "myServer-2" {`},
			diags: `.mcp.json:1:48: warning: Server renamed: The server "myServer" is imported as "myServer-2": "myServer" is taken by the server from .mcp.json:1.`,
		},
	} {
		t.Run(c.name, func(t *testing.T) {
			res, diags := Import([]File{{Name: c.file, Data: []byte(c.src)}}, Options{})
			if diags.HasErrors() {
				t.Fatal(shortDiags(diags))
			}
			for _, line := range c.spec {
				if !strings.Contains(string(res.Spec), line) {
					t.Errorf("the spec lacks %s:\n%s", line, res.Spec)
				}
			}
			want := c.diags
			if want != "" {
				want += "\n"
			}
			if diff := cmp.Diff(want, shortDiags(diags)); diff != "" {
				t.Errorf("diagnostics (-want +got):\n%s", diff)
			}
		})
	}
}
