policy "p" {
  builtin       = "fs_read"
  allowed_paths = ["."]
}

tool "entities_get" {
  description = "Get entities."
  policy      = policy.p
}

server "github" {
  command     = "npx"
  allow_tools = ["search_code", "get_file_*"] # WARNING: No matching tool
}

bundle "b" {
  server      = server.github
  allow_tools = ["search_code", "delete_repo"] # WARNING: No matching tool
}

agent "a" {
  tools {
    use     = ["entities_*", "entity_get", "github__*", server.github, bundle.b, runtime.agent__final_report] # WARNING: No matching tool
    allowed = ["entities_*", "github__search_code", "agent__final_report", "nothing_*"] # WARNING: No matching tool
  }
}
