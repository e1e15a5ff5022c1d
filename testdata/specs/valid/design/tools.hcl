policy "workspace_read" {
  builtin       = "fs_read"
  allowed_paths = ["./workspace"]
}
policy "workspace_write" {
  builtin       = "fs_write"
  allowed_paths = ["./workspace/out"]
}
policy "git" {
  builtin          = "shell_exec"
  allowed_commands = ["git", "go"]
  timeout          = "60s"
}

tool "read_file" {
  description  = "Read a UTF-8 text file inside the workspace."
  policy       = policy.workspace_read
  category     = "files"
  keywords     = ["open", "cat", "contents"]
  renamed_from = ["fs_read_file"]   # a call to an old name fails with "renamed to read_file"
}

tool "weather" {
  description = "Current weather for a city."
  rest {
    method  = "GET"
    url     = "https://api.weather.example/v1/{city}"     # RFC 6570 template over the arguments
    headers = { Authorization = "Bearer ${env("WEATHER_KEY")}" }
  }
  input_schema = {
    type       = "object"
    properties = { city = { type = "string", description = "City name" } }
    required   = ["city"]
  }
}

tool "summarize" {
  description = "Summarize a document."
  go          = "example.com/agent/tools.Summarize"       # func(context.Context, Args) (Result, error)
}
