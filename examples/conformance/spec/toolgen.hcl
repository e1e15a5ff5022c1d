# The agent the MCP conformance suite's server scenarios run against
# (testdata/conformance/server.sh): the tools those scenarios call by name,
# served by the same runtime/serve surface as every agent binary.
toolgen {
  package = "conformance"
}

tool "test_simple_text" {
  description = "Returns a fixed text response (conformance scenario tools-call-simple-text)."
  go          = "github.com/toolgen-dev/toolgen/examples/conformance/tools.SimpleText"
}

tool "test_error_handling" {
  description = "Always fails with an error result (conformance scenario tools-call-error)."
  go          = "github.com/toolgen-dev/toolgen/examples/conformance/tools.ErrorHandling"
}

# Only listed by the suite (json-schema-2020-12): the declared schema must
# reach tools/list byte for byte, $schema and $defs included. Calling it
# posts to a closed local port and fails with an error result.
tool "json_schema_2020_12_tool" {
  description  = "Tool with JSON Schema 2020-12 features"
  input_schema = file("json-schema-2020-12.json")
  rest {
    method = "POST"
    url    = "http://127.0.0.1:9/json-schema-2020-12"
  }
}

agent "conformance" {
  description = "Serves the conformance suite's tools."
  tools {
    use = [tool.test_simple_text, tool.test_error_handling, tool.json_schema_2020_12_tool]
  }
}
