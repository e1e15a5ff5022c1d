package hostconfig

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
)

// Launch says how a host starts an agent binary as its MCP server.
type Launch struct {
	// Name is the server's name in the host's configuration; default
	// Agent.
	Name string
	// Binary is the agent binary's absolute path: hosts start servers
	// from a directory of their own (often /), so a relative path breaks.
	Binary string
	// Agent is the agent the binary serves (serve --agent).
	Agent string
	// Workdir, when set, is the absolute directory the agent's policy
	// paths resolve against (serve --workdir), for the same reason.
	Workdir string
	// Env names the variables the agent reads when it runs (env() in its
	// spec). Snippets name them only: no value is ever written.
	Env []string
}

// Snippet is one piece of host configuration, ready to paste. The first
// of a host's snippets is its JSON document; any after it are other ways
// to the same entry (a command line).
type Snippet struct {
	// Where says where it goes, in a sentence.
	Where string
	// Text is JSON or a command line, ending in a newline.
	Text string
}

// Snippets returns what host needs to start the agent: Claude Desktop's
// claude_desktop_config.json entry, Claude Code's .mcp.json entry and its
// `claude mcp add` line, VS Code's .vscode/mcp.json (variables as inputs),
// Cursor's mcp.json (variables as ${env:NAME}). Output is deterministic.
func Snippets(host Format, l Launch) ([]Snippet, error) {
	if err := l.check(); err != nil {
		return nil, err
	}
	args := l.args()
	env := slices.Clone(l.Env)
	slices.Sort(env)
	env = slices.Compact(env)
	envObj := func(value func(string) string) object {
		var o object
		for _, n := range env {
			o = append(o, field{n, value(n)})
		}
		return o
	}
	stdio := func(withType bool, value func(string) string) object {
		var o object
		if withType {
			o = append(o, field{"type", "stdio"})
		}
		o = append(o, field{"command", l.Binary}, field{"args", args})
		if len(env) > 0 {
			o = append(o, field{"env", envObj(value)})
		}
		return o
	}
	name := l.Name
	switch host {
	case Claude:
		where := "Claude Desktop: add the server to \"mcpServers\" in claude_desktop_config.json (macOS: ~/Library/Application Support/Claude/, Windows: %APPDATA%\\Claude\\, Linux: ~/.config/Claude/), then restart Claude Desktop."
		if len(env) > 0 {
			where += " Claude Desktop does not pass your shell's environment: replace each <NAME> with its value (the file then holds it in plain text)."
		}
		text, err := jsonText(object{{"mcpServers", object{{name, stdio(false, func(n string) string { return "<" + n + ">" })}}}})
		return []Snippet{{where, text}}, err
	case ClaudeCode:
		text, err := jsonText(object{{"mcpServers", object{{name, stdio(true, func(n string) string { return "${" + n + "}" })}}}})
		if err != nil {
			return nil, err
		}
		where := "Claude Code: add the server to \"mcpServers\" in .mcp.json at the project's root"
		if len(env) > 0 {
			where += "; Claude Code expands ${NAME} from the environment it was started in, so export the variables before starting claude"
		}
		cmd := []string{"claude", "mcp", "add", "--transport", "stdio", "--scope", "project", name}
		for _, n := range env {
			cmd = append(cmd, "--env", n+"=${"+n+"}")
		}
		cmd = append(append(cmd, "--", l.Binary), args...)
		return []Snippet{
			{where + ".", text},
			{"Claude Code: or let claude write that entry.", shellLine(cmd)},
		}, nil
	case VSCode:
		top := object{{"servers", object{{name, stdio(true, func(n string) string { return "${input:" + n + "}" })}}}}
		where := "VS Code: the servers of .vscode/mcp.json in the workspace (or MCP: Open User Configuration)."
		if len(env) > 0 {
			var inputs []any
			for _, n := range env {
				inputs = append(inputs, object{
					{"type", "promptString"}, {"id", n},
					{"description", fmt.Sprintf("%s for the %s agent", n, l.Agent)}, {"password", true},
				})
			}
			top = append(top, field{"inputs", inputs})
			where = "VS Code: .vscode/mcp.json in the workspace (or MCP: Open User Configuration); merge servers and inputs with what is there. VS Code asks for each input once and keeps it encrypted; write \"${env:NAME}\" instead to read a variable from VS Code's environment."
		}
		text, err := jsonText(top)
		return []Snippet{{where, text}}, err
	case Cursor:
		where := "Cursor: add the server to \"mcpServers\" in ~/.cursor/mcp.json (every project) or .cursor/mcp.json (this project)."
		if len(env) > 0 {
			where += " Cursor reads ${env:NAME} from the environment it was started in."
		}
		text, err := jsonText(object{{"mcpServers", object{{name, stdio(false, func(n string) string { return "${env:" + n + "}" })}}}})
		return []Snippet{{where, text}}, err
	}
	_, err := ParseFormat(string(host))
	return nil, err
}

// WriteSnippets prints Snippets for a person and a redirect at once: out
// gets only the host's JSON document (the first snippet), so that
// `mcp-config HOST > .mcp.json` writes a valid file; notes gets where it
// goes, as # comment lines, and the other snippets (a command line).
func WriteSnippets(out, notes io.Writer, host Format, l Launch) error {
	snips, err := Snippets(host, l)
	if err != nil {
		return err
	}
	var b strings.Builder
	for i, s := range snips {
		if i > 0 {
			b.WriteByte('\n')
		}
		for _, line := range wrap(s.Where, 98) {
			b.WriteString("# " + line + "\n")
		}
		if i > 0 {
			b.WriteString(s.Text)
		}
	}
	if _, err := io.WriteString(notes, b.String()); err != nil {
		return err
	}
	_, err = io.WriteString(out, snips[0].Text)
	return err
}

func (l *Launch) check() error {
	if l.Agent == "" {
		return fmt.Errorf("no agent to serve")
	}
	if l.Name == "" {
		l.Name = l.Agent
	}
	if !filepath.IsAbs(l.Binary) {
		return fmt.Errorf("the binary path %q is not absolute; hosts start servers from a directory of their own", l.Binary)
	}
	if l.Workdir != "" && !filepath.IsAbs(l.Workdir) {
		return fmt.Errorf("the working directory %q is not absolute", l.Workdir)
	}
	for _, n := range l.Env {
		if !envNameRe.MatchString(n) {
			return fmt.Errorf("%q is not an environment variable name", n)
		}
	}
	return nil
}

func (l Launch) args() []string {
	args := []string{"serve", "--stdio", "--agent", l.Agent}
	if l.Workdir != "" {
		args = append(args, "--workdir", l.Workdir)
	}
	return args
}

// object is a JSON object that keeps its key order, as people write host
// files (command before args before env).
type object []field

type field struct {
	key string
	val any
}

// jsonText prints a host file the way people write them: two-space
// indents, keys in order, a list of strings on one line.
func jsonText(v any) (string, error) {
	var b strings.Builder
	if err := writeJSON(&b, v, ""); err != nil {
		return "", err
	}
	b.WriteByte('\n')
	return b.String(), nil
}

func writeJSON(b *strings.Builder, v any, indent string) error {
	switch v := v.(type) {
	case object:
		return writeLines(b, "{", "}", indent, len(v), func(i int) (string, any) { return quote(v[i].key) + ": ", v[i].val })
	case []any:
		return writeLines(b, "[", "]", indent, len(v), func(i int) (string, any) { return "", v[i] })
	case []string:
		q := make([]string, len(v))
		for i, s := range v {
			q[i] = quote(s)
		}
		b.WriteString("[" + strings.Join(q, ", ") + "]")
	case string:
		b.WriteString(quote(v))
	case bool:
		fmt.Fprint(b, v)
	default:
		return fmt.Errorf("hostconfig: cannot print %T as JSON", v)
	}
	return nil
}

// writeLines writes the n items of an object or array one a line, each
// after its prefix (an object's key).
func writeLines(b *strings.Builder, open, close, indent string, n int, item func(i int) (prefix string, val any)) error {
	b.WriteString(open + "\n")
	for i := range n {
		prefix, val := item(i)
		b.WriteString(indent + "  " + prefix)
		if err := writeJSON(b, val, indent+"  "); err != nil {
			return err
		}
		if i < n-1 {
			b.WriteByte(',')
		}
		b.WriteByte('\n')
	}
	b.WriteString(indent + close)
	return nil
}

// quote is a JSON string without HTML escaping: placeholders are <NAME>.
func quote(s string) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.Encode(s) // a string always encodes
	return strings.TrimSuffix(b.String(), "\n")
}

// envNameRe is a variable name env("NAME") accepts.
var envNameRe = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// shellSafe are words a POSIX shell reads as they are.
var shellSafe = regexp.MustCompile(`^[A-Za-z0-9_@%+:,./=-]+$`)

// shellLine joins words into one POSIX shell command line, quoting those
// that need it; ${NAME} is single-quoted so the shell leaves it to the host.
func shellLine(words []string) string {
	q := make([]string, len(words))
	for i, w := range words {
		if shellSafe.MatchString(w) {
			q[i] = w
		} else {
			q[i] = "'" + strings.ReplaceAll(w, "'", `'\''`) + "'"
		}
	}
	return strings.Join(q, " ") + "\n"
}

// wrap breaks text into lines of at most width bytes at spaces.
func wrap(text string, width int) []string {
	var lines []string
	line := ""
	for _, word := range strings.Fields(text) {
		if line != "" && len(line)+1+len(word) > width {
			lines = append(lines, line)
			line = ""
		}
		if line != "" {
			line += " "
		}
		line += word
	}
	return append(lines, line)
}
