agent "a" {
  subagents = [agent.b]
}

agent "b" {
  subagents = [agent.c]
}

agent "c" {
  subagents = [agent.a] # ERROR: Sub-agent cycle
}

agent "solo" {
  subagents = [agent.solo] # ERROR: Sub-agent cycle
}
