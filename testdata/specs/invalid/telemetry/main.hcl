toolgen {
  telemetry = "yes" # ERROR: Invalid value
}
