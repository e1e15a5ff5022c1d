toolgen {
  store = "rediss" # ERROR: Unknown store
}
