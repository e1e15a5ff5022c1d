# Ways other configs write an environment variable: each gets a hint
# toward env("NAME").
server "gh" {
  transport = "http"
  url       = "https://api.example/mcp"
  headers = {
    Authorization = "Bearer ${GITHUB_TOKEN}" # ERROR: Variables not allowed
    X-Token       = env.GITHUB_TOKEN # ERROR: Variables not allowed
  }
}

agent "a" {
  tools { use = [server.gh] }
}
