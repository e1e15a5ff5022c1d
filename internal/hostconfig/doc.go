// Package hostconfig names the MCP hosts toolgen onboards (Claude Desktop,
// Claude Code, VS Code, Cursor) and prints what each needs to start an
// agent binary as its MCP server: Snippets, behind an agent's
// `mcp-config` command. Agent binaries link it, so it depends on nothing
// of the generator (a test checks); reading host files into a spec is
// package hostimport's job.
//
// A snippet runs the binary by its absolute path, as
// `serve --stdio --agent A [--workdir DIR]`, since hosts start servers
// from a directory of their own, and names the variables the agent reads
// in the host's own syntax, never their values:
//
//	claude        claude_desktop_config.json "mcpServers" entry; "<NAME>" placeholders to replace
//	              (Claude Desktop passes no shell environment)
//	claude-code   .mcp.json "mcpServers" entry with "${NAME}", and the `claude mcp add --scope
//	              project` line that writes the same entry
//	vscode        .vscode/mcp.json "servers" entry, type stdio, "${input:NAME}" with a
//	              promptString input (password) per variable
//	cursor        ~/.cursor/mcp.json or .cursor/mcp.json "mcpServers" entry with "${env:NAME}"
package hostconfig
