queue "github" { concurrent = 2 }

policy "workspace_read" {
  builtin       = "fs_read"
  allowed_paths = ["./workspace"]
}

server "github" {
  command = "npx"
  queue   = queue.githb # ERROR: Unknown queue
}

tool "read_file" {
  policy = policy.workspace_reed # ERROR: Unknown policy
}

bundle "code" {
  server = server.gitub # ERROR: Unknown server
}

agent "coder" {
  tools {
    use = [tool.read_fil, bundle.code, server.github] # ERROR: Unknown tool
  }
  subagents = [agent.reviewr] # ERROR: Unknown agent
}

agent "reviewer" {
  tools {
    use = [tool.github] # ERROR: Unknown tool
  }
}
