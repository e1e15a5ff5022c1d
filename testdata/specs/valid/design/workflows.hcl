workflow "release" {
  role "planner" {
    step "plan"   { bundles = [bundle.code_read] }
    step "review" { bundles = [bundle.code_read, bundle.web] }
  }
}
