toolgen { package = "one" }
toolgen { package = "two" } # ERROR: Duplicate toolgen block

defaults {}
defaults {} # ERROR: Duplicate defaults block

server "s" {
  command = "x"
  health_check {}
  health_check {} # ERROR: Duplicate health_check block
}

workflow "w" {
  role "r" {
    step "s" { bundles = [] }
    step "s" { bundles = [] } # ERROR: Duplicate step
  }
  role "r" { # ERROR: Duplicate role
    step "t" { bundles = [] }
  }
}

agent "a" {
  tools {}
  tools {} # ERROR: Duplicate tools block
}
