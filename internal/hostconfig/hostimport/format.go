package hostimport

import (
	"path/filepath"
	"slices"

	"github.com/toolgen-dev/toolgen/internal/hostconfig"
)

const (
	claude     = hostconfig.Claude
	claudeCode = hostconfig.ClaudeCode
	vscode     = hostconfig.VSCode
	cursor     = hostconfig.Cursor
)

// Fields each format documents for a server entry. The ones not in
// importedFields are known but not imported, each with a reason.
var formatFields = map[hostconfig.Format][]string{
	claude:     {"command", "args", "env"},
	claudeCode: {"type", "command", "args", "env", "url", "headers", "headersHelper", "oauth"},
	vscode:     {"type", "command", "args", "env", "envFile", "cwd", "dev", "url", "headers"},
	cursor:     {"type", "command", "args", "env", "envFile", "url", "headers", "auth"},
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
func detect(path string, topKeys []string) (f hostconfig.Format, fields []string, ok bool) {
	slash := filepath.ToSlash(path)
	base := filepath.Base(slash)
	parent := filepath.Base(filepath.Dir(slash))
	switch {
	case base == "claude_desktop_config.json":
		return claude, formatFields[claude], true
	case base == ".mcp.json":
		return claudeCode, formatFields[claudeCode], true
	case base == "mcp.json" && parent == ".vscode":
		return vscode, formatFields[vscode], true
	case base == "mcp.json" && parent == ".cursor":
		return cursor, formatFields[cursor], true
	}
	if slices.Contains(topKeys, "servers") {
		return vscode, formatFields[vscode], true
	}
	if slices.Contains(topKeys, "mcpServers") {
		var all []string
		for _, f := range []hostconfig.Format{claude, claudeCode, cursor} {
			for _, k := range formatFields[f] {
				if !slices.Contains(all, k) {
					all = append(all, k)
				}
			}
		}
		return claudeCode, all, true
	}
	return "", nil, false
}
