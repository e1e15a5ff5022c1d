package hostconfig

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"
)

// Format names a host and its MCP configuration format. The names are the
// ones users type: `toolgen import` reads them and `mcp-config` takes them.
type Format string

const (
	Claude     Format = "claude"      // Claude Desktop's claude_desktop_config.json
	ClaudeCode Format = "claude-code" // Claude Code's .mcp.json
	VSCode     Format = "vscode"      // VS Code's .vscode/mcp.json
	Cursor     Format = "cursor"      // Cursor's .cursor/mcp.json or ~/.cursor/mcp.json
)

// Formats lists every format, in the order help texts show them.
var Formats = []Format{Claude, ClaudeCode, VSCode, Cursor}

// ParseFormat reads a format name as a user types it.
func ParseFormat(s string) (Format, error) {
	for _, f := range Formats {
		if string(f) == s {
			return f, nil
		}
	}
	names := make([]string, len(Formats))
	for i, f := range Formats {
		names[i] = string(f)
	}
	return "", fmt.Errorf("unknown host %q%s (hosts: %s)", s, didYouMean(s, names), strings.Join(names, ", "))
}

// Title is the product's name, for messages.
func (f Format) Title() string {
	switch f {
	case Claude:
		return "Claude Desktop"
	case ClaudeCode:
		return "Claude Code"
	case VSCode:
		return "VS Code"
	case Cursor:
		return "Cursor"
	}
	return string(f)
}

// serversKey is the top-level key holding the servers.
func (f Format) serversKey() string {
	if f == VSCode {
		return "servers"
	}
	return "mcpServers"
}

// Fields each format documents for a server entry. The ones not in
// importedFields are known but not imported, each with a reason.
var formatFields = map[Format][]string{
	Claude:     {"command", "args", "env"},
	ClaudeCode: {"type", "command", "args", "env", "url", "headers", "headersHelper", "oauth"},
	VSCode:     {"type", "command", "args", "env", "envFile", "cwd", "dev", "url", "headers"},
	Cursor:     {"type", "command", "args", "env", "envFile", "url", "headers", "auth"},
}

// importedFields are read from any format: a Claude Desktop entry with a
// url is still a server with a url.
var importedFields = []string{"type", "command", "args", "env", "url", "headers", "disabled"}

// skippedFields are known fields toolgen does not take, and why.
var skippedFields = map[string]string{
	"cwd":           "toolgen starts stdio servers in the agent's working directory",
	"envFile":       "toolgen never copies values from an env file; set its variables in the agent's environment and declare them in env with env(\"NAME\")",
	"dev":           "VS Code's development mode (watch, debug) has no toolgen equivalent",
	"headersHelper": "toolgen does not run a command to make headers; declare the headers with env(\"NAME\") values",
	"oauth":         "OAuth settings are not imported; declare the credentials as headers with env(\"NAME\") values",
	"auth":          "OAuth settings are not imported; declare the credentials as headers with env(\"NAME\") values",
}

// detect names the format of a host file from its path, or failing that
// from its top-level keys, and returns the server fields it documents. A
// file named otherwise with "mcpServers" may be any of three formats, so
// their fields are all known.
func detect(path string, topKeys []string) (f Format, fields []string, ok bool) {
	slash := filepath.ToSlash(path)
	base := filepath.Base(slash)
	parent := filepath.Base(filepath.Dir(slash))
	switch {
	case base == "claude_desktop_config.json":
		return Claude, formatFields[Claude], true
	case base == ".mcp.json":
		return ClaudeCode, formatFields[ClaudeCode], true
	case base == "mcp.json" && parent == ".vscode":
		return VSCode, formatFields[VSCode], true
	case base == "mcp.json" && parent == ".cursor":
		return Cursor, formatFields[Cursor], true
	}
	if slices.Contains(topKeys, "servers") {
		return VSCode, formatFields[VSCode], true
	}
	if slices.Contains(topKeys, "mcpServers") {
		var all []string
		for _, f := range []Format{Claude, ClaudeCode, Cursor} {
			for _, k := range formatFields[f] {
				if !slices.Contains(all, k) {
					all = append(all, k)
				}
			}
		}
		return ClaudeCode, all, true
	}
	return "", nil, false
}
