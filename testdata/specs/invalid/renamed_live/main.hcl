policy "p" {
  builtin       = "fs_read"
  allowed_paths = ["."]
}

tool "read_file" {
  policy       = policy.p
  renamed_from = ["cat_file", "write_file"] # ERROR: Renamed name still in use
}

tool "write_file" {
  policy       = policy.p
  renamed_from = ["cat_file"] # ERROR: Duplicate renamed_from
}
