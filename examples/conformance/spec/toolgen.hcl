# The agent the MCP conformance suite's server scenarios run against
# (testdata/conformance/server.sh): the tools those scenarios call by name,
# served by the same runtime/serve surface as every agent binary.
toolgen {
  package   = "conformance"
  separator = "_" # with the server named "test", its prompts reach the host under the suite's names (test_prompt_with_image)
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

tool "test_input_required_result_elicitation" {
  description = "Asks the user their name (input-required scenarios)."
  go          = "github.com/toolgen-dev/toolgen/examples/conformance/tools.InputElicitation"
}

tool "test_input_required_result_sampling" {
  description = "Asks the host's model (input-required-result-basic-sampling)."
  go          = "github.com/toolgen-dev/toolgen/examples/conformance/tools.InputSampling"
}

tool "test_input_required_result_list_roots" {
  description = "Asks for the host's roots (input-required-result-basic-list-roots)."
  go          = "github.com/toolgen-dev/toolgen/examples/conformance/tools.InputRoots"
}

tool "test_input_required_result_request_state" {
  description = "Asks for a confirmation (input-required-result-request-state)."
  go          = "github.com/toolgen-dev/toolgen/examples/conformance/tools.InputConfirm"
}

tool "test_input_required_result_tampered_state" {
  description = "Asks for a confirmation (input-required-result-tampered-state)."
  go          = "github.com/toolgen-dev/toolgen/examples/conformance/tools.InputConfirm"
}

tool "test_input_required_result_multiple_inputs" {
  description = "Asks the user, the model and for roots at once (input-required-result-multiple-input-requests)."
  go          = "github.com/toolgen-dev/toolgen/examples/conformance/tools.InputMultiple"
}

tool "test_input_required_result_multi_round" {
  description = "Asks twice in a row (input-required-result-multi-round)."
  go          = "github.com/toolgen-dev/toolgen/examples/conformance/tools.InputMultiRound"
}

tool "test_input_required_result_capabilities" {
  description = "Asks only what the host declared it can answer (input-required-result-capability-check)."
  go          = "github.com/toolgen-dev/toolgen/examples/conformance/tools.InputCapabilities"
}

# The Tasks extension's scenarios (tasks-*): with task set, a call from a
# host that declares the extension runs as a task (runtime/tasks).
tool "greet" {
  description = "Greets by name; a plain call (tasks scenarios)."
  go          = "github.com/toolgen-dev/toolgen/examples/conformance/tools.Greet"
}

tool "slow_compute" {
  description = "Works for the given seconds (tasks scenarios)."
  go          = "github.com/toolgen-dev/toolgen/examples/conformance/tools.SlowCompute"
  task        = "optional"
}

tool "failing_job" {
  description = "Fails as a tool after a second; runs only as a task (tasks-required-task-error)."
  go          = "github.com/toolgen-dev/toolgen/examples/conformance/tools.FailingJob"
  task        = "required"
}

tool "protocol_error_job" {
  description = "Breaks inside the agent, so its task fails (tasks-lifecycle)."
  go          = "github.com/toolgen-dev/toolgen/examples/conformance/tools.ProtocolErrorJob"
  task        = "optional"
}

tool "confirm_delete" {
  description = "Asks to confirm a deletion (tasks-mrtr-input)."
  go          = "github.com/toolgen-dev/toolgen/examples/conformance/tools.ConfirmDelete"
  task        = "optional"
}

tool "multi_input" {
  description = "Asks two questions at once (tasks-mrtr-input)."
  go          = "github.com/toolgen-dev/toolgen/examples/conformance/tools.MultiInput"
  task        = "optional"
}

tool "test_tool_with_task" {
  description = "Asks the user's name in an input-required round, then continues as a task (tasks-mrtr-composition)."
  go          = "github.com/toolgen-dev/toolgen/examples/conformance/tools.GreetLater"
  task        = "after_input"
}

tool "test_missing_capability" {
  description = "Needs the host's model: refused (-32021) to a host that did not declare sampling (server-stateless)."
  go          = "github.com/toolgen-dev/toolgen/examples/conformance/tools.MissingCapability"
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
  description = "Serves the conformance suite's tools, prompts and resources."
  tools {
    use = [
      tool.test_simple_text, tool.test_error_handling, tool.json_schema_2020_12_tool,
      tool.test_image_content, tool.test_audio_content, tool.test_embedded_resource, tool.test_multiple_content_types,
      tool.test_tool_with_logging, tool.test_tool_with_progress, tool.test_sampling, tool.test_elicitation,
      tool.test_elicitation_sep1034_defaults, tool.test_elicitation_sep1330_enums,
      tool.test_input_required_result_elicitation, tool.test_input_required_result_sampling,
      tool.test_input_required_result_list_roots, tool.test_input_required_result_request_state,
      tool.test_input_required_result_tampered_state, tool.test_input_required_result_multiple_inputs,
      tool.test_input_required_result_multi_round, tool.test_input_required_result_capabilities,
      tool.greet, tool.slow_compute, tool.failing_job, tool.protocol_error_job, tool.confirm_delete, tool.multi_input, tool.test_tool_with_task,
      tool.test_missing_capability,
      prompt.test_simple_prompt, prompt.test_prompt_with_arguments,
      resource.static_text, resource.watched, server.test,
    ]
  }
}

# The prompts and resources the suite's prompts-*, resources-* and
# completion-complete scenarios read by name and URI.
prompt "test_simple_prompt" {
  description = "A prompt without arguments (conformance scenario prompts-get-simple)."
  template    = "This is a simple prompt for testing."
}

prompt "test_prompt_with_arguments" {
  description = "A prompt with two arguments (conformance scenarios prompts-get-with-args, completion-complete)."
  argument "arg1" {
    description = "First test argument"
    required    = true
  }
  argument "arg2" {
    description = "Second test argument"
    required    = true
  }
  template = "Prompt with arguments: arg1='{arg1}', arg2='{arg2}'"
}

# The binary resource, the resource template and the image and
# embedded-resource prompts come from a server the agent uses (resources
# under their own URIs, prompts as test_<prompt>):
# testdata/conformance/server.sh builds bin/conformance-upstream and runs
# the agent from the repository root.
server "test" {
  command = "bin/conformance-upstream"
}

resource "static_text" {
  uri         = "test://static-text"
  description = "A static text resource (conformance scenario resources-read-text)."
  text        = "This is the content of the static text resource."
}

resource "watched" {
  uri         = "test://watched-resource"
  description = "A resource hosts subscribe to (conformance scenarios resources-subscribe, resources-unsubscribe)."
  text        = "Watched content."
}
