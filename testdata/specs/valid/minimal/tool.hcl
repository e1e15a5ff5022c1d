tool "hello" {
  description = "Say hello to someone by name."
  go          = "example.com/hello.Hello"
}

agent "greeter" {
  tools {
    use = [tool.hello]
  }
}
