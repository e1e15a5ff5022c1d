toolgen {
  package = "small"
}

policy "notes_read" {
  builtin       = "fs_read"
  allowed_paths = ["./notes"]
}

tool "read_note" {
  description = "Read a note (a UTF-8 text file) from the notes directory."
  policy      = policy.notes_read
  category    = "notes"
  keywords    = ["open", "note", "text"]
}

agent "assistant" {
  description = "Answers questions from the user's notes."
  tools {
    use = [tool.read_note]
  }
}
