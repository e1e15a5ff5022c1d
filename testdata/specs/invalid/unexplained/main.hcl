# Valid, but serves nobody well: warnings, exit 0.
policy "notes" {
  builtin       = "fs_read"
  allowed_paths = ["./notes"]
}

tool "read_note" { # WARNING: No agent
  description = "Read a note from the notes directory."
  policy      = policy.notes
}

tool "list_notes" { # WARNING: Tool without a description
  policy = policy.notes
}
