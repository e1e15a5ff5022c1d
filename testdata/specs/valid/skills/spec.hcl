# Skills: declared from their directories, used by agents like tools
# (references and globs), carried by bundles and narrowed by workflow steps.
toolgen {
  package = "skilled"
}

policy "repo_read" {
  builtin       = "fs_read"
  allowed_paths = ["./repo"]
}

tool "read_file" {
  description = "Read a file of the repository."
  policy      = policy.repo_read
}

skill "code-review" {
  dir = "skills/code-review"
}

# dir defaults to skills/NAME.
skill "commit-message" {}

bundle "reviewing" {
  tools  = [tool.read_file]
  skills = [skill.code-review]
}

agent "reviewer" {
  description = "Reviews changes."
  tools {
    use = [bundle.reviewing, "commit-*"]
  }
}

agent "writer" {
  description = "Writes commit messages."
  tools {
    use = [tool.read_file, skill.commit-message]
  }
}

workflow "change" {
  role "author" {
    step "review" { bundles = [bundle.reviewing] }
  }
}
