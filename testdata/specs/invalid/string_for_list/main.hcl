# One mistake, one diagnostic: a string where a list belongs is reported
# once, with the fix, and not again as a missing attribute.
policy "notes" {
  builtin       = "fs_read"
  allowed_paths = "./notes" # ERROR: Incorrect attribute value type
}

policy "build" {
  builtin          = "shell_exec"
  allowed_commands = "go" # ERROR: Incorrect attribute value type
}
