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

tool "test_image_content" {
  description = "Returns an image (conformance scenario tools-call-image)."
  go          = "github.com/toolgen-dev/toolgen/examples/conformance/tools.ImageContent"
}

tool "test_audio_content" {
  description = "Returns audio (conformance scenario tools-call-audio)."
  go          = "github.com/toolgen-dev/toolgen/examples/conformance/tools.AudioContent"
}

tool "test_embedded_resource" {
  description = "Returns an embedded resource (conformance scenario tools-call-embedded-resource)."
  go          = "github.com/toolgen-dev/toolgen/examples/conformance/tools.EmbeddedResource"
}

tool "test_multiple_content_types" {
  description = "Returns text, an image and a resource (conformance scenario tools-call-mixed-content)."
  go          = "github.com/toolgen-dev/toolgen/examples/conformance/tools.MultipleContentTypes"
}

tool "test_tool_with_logging" {
  description = "Sends three log messages while it runs (conformance scenario tools-call-with-logging)."
  go          = "github.com/toolgen-dev/toolgen/examples/conformance/tools.ToolWithLogging"
}

tool "test_tool_with_progress" {
  description = "Reports progress while it runs (conformance scenario tools-call-with-progress)."
  go          = "github.com/toolgen-dev/toolgen/examples/conformance/tools.ToolWithProgress"
}

tool "test_sampling" {
  description = "Asks the host's model (conformance scenario tools-call-sampling)."
  go          = "github.com/toolgen-dev/toolgen/examples/conformance/tools.Sampling"
}

tool "test_elicitation" {
  description = "Asks the host's user (conformance scenario tools-call-elicitation)."
  go          = "github.com/toolgen-dev/toolgen/examples/conformance/tools.Elicitation"
}

tool "test_elicitation_sep1034_defaults" {
  description = "Asks the host's user, with defaults (conformance scenario elicitation-sep1034-defaults)."
  go          = "github.com/toolgen-dev/toolgen/examples/conformance/tools.ElicitationDefaults"
}

tool "test_elicitation_sep1330_enums" {
  description = "Asks the host's user to pick from enums (conformance scenario elicitation-sep1330-enums)."
  go          = "github.com/toolgen-dev/toolgen/examples/conformance/tools.ElicitationEnums"
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
    use = [
      tool.test_simple_text, tool.test_error_handling, tool.json_schema_2020_12_tool,
      tool.test_image_content, tool.test_audio_content, tool.test_embedded_resource, tool.test_multiple_content_types,
      tool.test_tool_with_logging, tool.test_tool_with_progress, tool.test_sampling, tool.test_elicitation,
      tool.test_elicitation_sep1034_defaults, tool.test_elicitation_sep1330_enums,
    ]
  }
}
