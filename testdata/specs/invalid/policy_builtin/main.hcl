policy "a" {
  builtin       = "fs_reed" # ERROR: Invalid builtin
  allowed_paths = ["."]
}

policy "b" { # ERROR: Missing allowed_paths
  builtin = "fs_read"
}

policy "c" { # ERROR: Missing allowed_commands
  builtin = "shell_exec"
}

policy "d" {
  builtin          = "shell_exec"
  allowed_commands = ["git status"] # ERROR: Invalid command
}

policy "e" {
  builtin          = "fs_write"
  allowed_paths    = []                # ERROR: Missing allowed_paths
  allowed_commands = ["git"]           # ERROR: Attribute not used by builtin
}

policy "f" { # ERROR: Missing required argument
}

policy "g" {
  builtin          = "shell_exec"
  allowed_commands = ["git"]
  allow_hardlinks  = true # ERROR: Attribute not used by builtin
}

policy "h" {
  builtin        = "fs_read"
  allowed_paths  = ["."]
  max_processes  = 10 # ERROR: Attribute not used by builtin
}

policy "i" {
  builtin          = "shell_exec"
  allowed_commands = ["git"]
  max_cpu_time     = "500ms" # ERROR: Invalid CPU time limit
  max_memory_mib   = 0       # ERROR: Invalid number
}
