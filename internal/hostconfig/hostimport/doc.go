// Package hostimport turns MCP hosts' configuration files into a toolgen
// spec (what `toolgen import` does): one server block per entry and one
// agent using them, with no secret copied.
//
// # Formats read
//
// All four are JSON; comments and trailing commas (VS Code's JSONC) are
// accepted. The format comes from the file name (claude_desktop_config.json,
// .mcp.json, .vscode/mcp.json, .cursor/mcp.json) or, failing that, from the
// top-level key: "servers" is VS Code, "mcpServers" is read with the fields
// of all three mcpServers formats.
//
//	Claude Desktop  claude_desktop_config.json  {"mcpServers": {NAME: {command, args, env}}}
//	                other top-level keys are app settings and are ignored
//	Claude Code     .mcp.json                   {"mcpServers": {NAME: {type, command, args, env, url, headers,
//	                                             headersHelper, oauth}}}; type is stdio (default), http or sse;
//	                                             ${VAR} and ${VAR:-default} expand the environment
//	VS Code         .vscode/mcp.json            {"servers": {NAME: {type, command, args, env, envFile, cwd, dev,
//	                                             url, headers}}, "inputs": [{type, id, description, password}]};
//	                                             type is stdio, http or sse; ${input:ID} asks the user,
//	                                             ${env:NAME} reads the environment, ${workspaceFolder} etc.
//	Cursor          .cursor/mcp.json            {"mcpServers": {NAME: {type, command, args, env, envFile, url,
//	                                             headers, auth}}}; ${env:NAME} reads the environment,
//	                                             ${userHome}, ${workspaceFolder} etc. are editor variables
//
// # How an entry maps to a server block
//
//	NAME            server "NAME": characters outside [A-Za-z0-9_-] become _, at most 64 bytes;
//	                a name taken (also one with the same Go identifier) gets -2, -3 … in file order;
//	                a name whose tools the runtime reserves (agent, agent_, agent__…) gets mcp_ before it
//	type            transport: stdio → stdio; http, streamable-http, streamableHttp → http; sse → sse;
//	                ws, websocket → ws. Without type: command → stdio, url → http (sse when the
//	                URL path ends in /sse)
//	command, args   command, args; a command line whose first word has no path separator is split
//	                into command and args (toolgen runs no shell; one with quotes is not imported). ${…} in them is not expanded by
//	                toolgen: kept as written (escaped) with a warning. An argument that looks like
//	                a credential is replaced by "<redacted>" (a URL keeps all but its password)
//	env             env: every value becomes env("NAME") read when the agent runs, never the
//	                literal value: a literal or editor-variable value reads the variable of its own
//	                key; ${env:X}, ${X}, ${X:-d} read X (the default is dropped); ${input:ID} reads
//	                ID in upper case with - and . as _ (github-token → GITHUB_TOKEN)
//	url             url; references become env() as in env; a password in the URL and a query
//	                value whose name or value looks like a credential become env("SERVER_PARAM")
//	headers         headers; references become env(); a literal value of an Authorization-like
//	                header (auth, token, key, secret, password, cookie …) or one that looks like a
//	                credential becomes env("SERVER_TOKEN") for Authorization, env("SERVER_HEADER")
//	                otherwise, keeping a leading "Bearer "/"Basic "/"Token "; other headers are copied
//	disabled: true  the server is not imported
//	cwd, envFile, dev, headersHelper, oauth, auth
//	                not imported, each with a warning saying why
//	anything else   a warning naming the field, with "did you mean" among the format's fields
//
// The spec gets one agent (default "assistant") whose tools use every
// imported server. Every variable the spec reads is listed in
// Result.Variables with where it came from, so the user can export it; no
// value from a host file's env, headers or URL credentials is written.
package hostimport
