tool "hello" {
  go = "example.com/hello.Hello"
}
