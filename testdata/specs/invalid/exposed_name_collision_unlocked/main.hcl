# No lock file: an allow list that names a server tool exactly is enough to
# know the server's exposed name, and a declared tool already takes it.
toolgen { separator = "-" }

policy "p" {
  builtin       = "fs_read"
  allowed_paths = ["."]
}

tool "github-search" {
  policy = policy.p
}

tool "gitlab-get_file" {
  policy = policy.p
}

tool "docs-read" {
  policy = policy.p
}

server "github" {
  command     = "npx"
  allow_tools = ["search", "list_*"] # ERROR: Exposed name collision
}

# Reported once, at the first list that names it.
bundle "code" {
  server      = server.github
  allow_tools = ["search"]
}

# get.file is exposed as gitlab-get_file once sanitised.
server "gitlab" {
  command = "npx"
}

bundle "lab" {
  server      = server.gitlab
  allow_tools = ["issues", "get.file"] # ERROR: Exposed name collision
}

# A tool the server denies is never exposed, so it takes no name.
server "docs" {
  command    = "npx"
  deny_tools = ["rea?"]
}

bundle "docs" {
  server      = server.docs
  allow_tools = ["read"]
}
