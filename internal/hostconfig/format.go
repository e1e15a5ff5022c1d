package hostconfig

import (
	"fmt"
	"strings"

	"github.com/toolgen-dev/toolgen/internal/didyoumean"
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
	hint := ""
	if near := didyoumean.Nearest(s, names, 1); len(near) > 0 {
		hint = fmt.Sprintf("; did you mean %q?", near[0])
	}
	return "", fmt.Errorf("unknown host %q (hosts: %s)%s", s, strings.Join(names, ", "), hint)
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

// ServersKey is the top-level key of the format's file that holds the
// servers: "servers" for VS Code, "mcpServers" for the others.
func (f Format) ServersKey() string {
	if f == VSCode {
		return "servers"
	}
	return "mcpServers"
}
