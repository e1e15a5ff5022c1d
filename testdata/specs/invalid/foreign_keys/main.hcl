# A server entry pasted from an MCP host config: "type" is "transport" here.
server "gh" {
  type    = "stdio" # ERROR: Unsupported argument
  command = "gh-mcp"
}

agent "a" {
  tools { use = [server.gh] }
}
