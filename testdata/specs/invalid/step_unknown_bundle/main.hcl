server "github" {
  command = "npx"
}

bundle "code_read" {
  server = server.github
}

workflow "release" {
  role "planner" {
    step "plan" { bundles = [bundle.code_reed] } # ERROR: Unknown bundle
    step "ship" { bundles = [bundle.code_read, bundle.deploy] } # ERROR: Unknown bundle
  }
}
