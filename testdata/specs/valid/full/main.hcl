# Every block and attribute of the spec language.
toolgen {
  package   = "fullspec"
  separator = "_-"
  telemetry = true
  store     = "memory"
  enrich {
    model       = model.fast
    queries     = 6
    concurrency = 2
    at_run_time = true
  }
}

defaults {
  tool_timeout       = "45s"
  response_max_bytes = 65536
  startup_timeout    = "20s"
  max_depth          = 3
  context_budget     = 50000
  init_concurrency   = 2
  model              = model.fast
}

model "fast" {
  provider = "openai"
  name     = env("FAST_MODEL", "gpt-4.1-mini")
  base_url = env("OPENAI_BASE_URL")
  api_key  = env("OPENAI_API_KEY")
}

model "deep" {
  provider    = "anthropic"
  name        = "claude-sonnet-4-5"
  api_key     = env("ANTHROPIC_API_KEY")
  max_tokens  = 4096
  temperature = 0.2
  timeout     = "90s"
  headers     = { "anthropic-beta" = "tools-2025", "X-Team" = env("TEAM") }
}

queue "shared" { concurrent = 1 }
queue "api" { concurrent = 8 }

server "local" {
  transport            = "stdio"
  command              = "./bin/local-mcp"
  args                 = ["--stdio", "--root", "."]
  env                  = { LOG = "debug", API_TOKEN = env("LOCAL_TOKEN"), PATHS = "${env("HOME")}/bin:/usr/bin" }
  trust                = "trusted"
  allow_tools          = ["echo", "add", "long*"]
  deny_tools           = ["longRunningOperation"]
  queue                = queue.shared
  timeout              = "1m"
  cache                = "30s"
  startup_timeout      = "5s"
  protocol_version     = "2025-06-18"
  forward_instructions = true
  tasks                = true
  sampling             = "model"
  elicitation          = "deny"
  on_drift             = "refuse"
  health_check {
    interval = "10s"
    timeout  = "2s"
  }
}

server "api" {
  transport = "http"
  url       = "https://${env("API_HOST")}/mcp"
  headers = {
    Authorization = "Bearer ${env("API_TOKEN")}"
    Accept        = "application/json"
  }
}

server "events" {
  transport = "sse"
  url       = "http://127.0.0.1:8931/sse"
}

server "live" {
  transport = "ws"
  url       = "wss://live.example.com/mcp"
  health_check {}
}

server "raw" {
  transport   = "tcp"
  address     = "127.0.0.1:7000"
  trust       = "untrusted"
  allow_tools = ["lookup"]
}

policy "read" {
  builtin          = "fs_read"
  allowed_paths    = ["./data", "/srv/shared"]
  max_output_bytes = 1048576
}

policy "write" {
  builtin         = "fs_write"
  allowed_paths   = ["./data/out"]
  allow_hardlinks = true
}

policy "shell" {
  builtin          = "shell_exec"
  allowed_commands = ["git", "go", "make"]
  allowed_paths    = ["."]
  timeout          = "2m"
  max_output_bytes = 200000
  max_processes    = 128
  max_memory_mib   = 1024
  max_cpu_time     = "90s"
}

tool "read_file" {
  description  = file("read_file.md")
  policy       = policy.read
  category     = "files"
  keywords     = ["open", "cat"]
  renamed_from = ["fs_read_file", "cat"]
  timeout      = "5s"
  title        = "Read file"
  always_load  = true
  task         = "optional"
  annotations {
    read_only  = true
    idempotent = true
    open_world = false
  }
}

tool "write_file" {
  description = "Write a file under data/out."
  policy      = policy.write
  category    = "files"
  queue       = queue.shared
}

tool "run" {
  description = "Run an allowed program."
  policy      = policy.shell
}

tool "search_issues" {
  description = "Search the issue tracker."
  category    = "tracker"
  keywords    = ["bugs", "tickets"]
  queue       = queue.api
  timeout     = "10s"
  rest {
    method  = "post"
    url     = "https://${env("TRACKER_HOST")}/api/search{?q,limit}"
    headers = { Authorization = "Token ${env("TRACKER_TOKEN")}", Accept = "application/json" }
  }
  input_schema = file("search_issues.schema.json")
  output_schema = {
    type       = "object"
    properties = { total = { type = "integer" } }
  }
}

tool "summarize" {
  description = <<-EOT
    Summarize a document
    in a few sentences.
  EOT
  go          = "example.com/agent/tools.Summarize"
}

bundle "local_direct" {
  mode        = "direct"
  server      = server.local
  allow_tools = ["echo"]
}

bundle "raw_meta" {
  mode        = "meta"
  server      = server.raw
  allow_tools = ["lookup"]
  deny_tools  = ["drop*"]
}

bundle "files" {
  tools = [tool.read_file, tool.write_file]
}

agent "lead" {
  description = "Plans, delegates and hands off."
  tools {
    use     = [bundle.files, tool.run, bundle.raw_meta, server.api, "local_-*", "search_*", runtime.agent__batch, runtime.output_read]
    allowed = [tool.read_file, "r", "local_-echo", "agent__*", "spawn_agents", "list_available_agents", "mcp_*", "tool_*", "router__handoff-to", "output_read"]
    aliases = { r = tool.run, rr = "r" }
  }
  discovery = true
  subagents = [agent.helper, agent.critic]
  model        = model.deep
  instructions = file("lead.md")
  max_turns    = 12
  spawn     = true
  max_depth = 1
  router { destinations = [agent.critic, agent.helper] }
}

agent "helper" {
  description = "Reads and summarizes."
  tools {
    use = [tool.read_file, tool.summarize, bundle.local_direct]
  }
}

agent "critic" {
  tools {
    use     = [tool.summarize]
    allowed = []
  }
}

workflow "triage" {
  role "reader" {
    step "collect" { bundles = [bundle.files] }
  }
  role "analyst" {
    step "inspect" { bundles = [bundle.raw_meta, bundle.local_direct] }
    step "report" { bundles = [bundle.files] }
  }
}
