# The demo agent (examples/demo): run it from the repository root after
# `make npm`, which installs the pinned MCP reference server and Node 22.
toolgen {
  package = "demo"
}

defaults {
  tool_timeout    = "30s"
  startup_timeout = "20s"
}

# The MCP reference server, pinned in testdata/npm/package-lock.json. Its
# tools are recorded in toolgen.lock.json.
server "everything" {
  transport   = "stdio"
  command     = "testdata/npm/node_modules/.bin/node"
  args        = ["testdata/npm/node_modules/@modelcontextprotocol/server-everything/dist/index.js", "stdio"]
  allow_tools = ["echo", "get-*", "trigger-long-running-operation"]
  timeout     = "20s"
}

policy "workspace_read" {
  builtin       = "fs_read"
  allowed_paths = ["./examples/demo/workspace"]
}

policy "commands" {
  builtin          = "shell_exec"
  allowed_commands = ["echo", "ls", "git"]
  timeout          = "10s"
}

tool "read_file" {
  description = "Read a UTF-8 text file from the demo workspace."
  policy      = policy.workspace_read
  category    = "files"
  keywords    = ["open", "cat", "contents"]
}

tool "run_command" {
  description = "Run echo, ls or git with arguments, without a shell."
  policy      = policy.commands
  category    = "shell"
}

tool "word_count" {
  description = "Count the words of a text, or the distinct words."
  go          = "github.com/toolgen-dev/toolgen/examples/demo/tools.WordCount"
  category    = "text"
}

# The assistant may read, count and use two server tools. Everything else
# in use is blocked by tools.allowed: run_command, everything__get-env
# (which would print the environment) and the other server tools. allowed
# is the agent's whole list, so it names the discovery tools too.
agent "assistant" {
  description = "Reads workspace files and counts words; cannot run commands."
  tools {
    use     = [tool.read_file, tool.run_command, tool.word_count, server.everything]
    allowed = ["read", "word_count", "everything__echo", "everything__get-sum", "tool_*", "mcp_call_tool"]
    aliases = { read = "read_file" }
  }
  discovery = true
}

# The operator may also run commands.
agent "operator" {
  description = "Runs allowed commands and reads files in the workspace."
  tools {
    use = [tool.read_file, tool.run_command, tool.word_count]
  }
  subagents = [agent.assistant]
}
