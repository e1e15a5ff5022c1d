tool "t" {
  go = "example.com/t.T"
}

agent "a" {
  router {
    destinations = [tool.t, agent.b] # ERROR: Invalid router destination
  }
}

agent "b" {
  router {
    destinations = ["a"] # ERROR: Invalid router destination
  }
}
