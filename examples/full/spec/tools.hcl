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
  renamed_from = ["fs_read_file"]
}

tool "write_file" {
  description = "Write a UTF-8 text file under workspace/out."
  policy      = policy.workspace_write
  category    = "files"
  keywords    = ["save", "create"]
}

tool "run_git" {
  description = "Run git or go with arguments, without a shell."
  policy      = policy.git
  category    = "shell"
}

tool "weather" {
  description = "Current weather for a city."
  rest {
    method  = "GET"
    url     = "${env("WEATHER_URL")}/v1/{city}" # base URL read at run time
    headers = { Authorization = "Bearer ${env("WEATHER_KEY")}" }
  }
  input_schema = file("weather.schema.json") # read at generate time
}

tool "summarize" {
  description = "Summarize a document by its first sentences."
  go          = "github.com/toolgen-dev/toolgen/examples/full/tools.Summarize"
  category    = "text"
}

tool "word_count" {
  description = "Count the words of a text."
  go          = "github.com/toolgen-dev/toolgen/examples/full/tools.WordCount"
  category    = "text"
}

tool "sleep" {
  description = "Wait a number of milliseconds, standing in for a slow backend."
  go          = "github.com/toolgen-dev/toolgen/examples/full/tools.Sleep"
  category    = "debug"
  timeout     = "250ms" # overrides defaults.tool_timeout
}

tool "numbered_lines" {
  description = "Render numbered lines of a text; large outputs are spilled to disk."
  go          = "github.com/toolgen-dev/toolgen/examples/full/tools.NumberedLines"
  category    = "text"
}

tool "fingerprint" {
  description = "SHA-256 fingerprint of a text, from an expensive backend."
  go          = "github.com/toolgen-dev/toolgen/examples/full/tools.Fingerprint"
  category    = "text"
  keywords    = ["hash", "checksum", "sha256"]
  queue       = queue.fingerprint # at most 2 calls at once, across sessions
}
