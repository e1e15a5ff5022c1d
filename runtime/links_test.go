package runtime

// The tests run models of both providers and the OpenTelemetry SDK; a
// binary links each only through its package, as the generated registry
// does when the spec declares it.
import (
	_ "github.com/toolgen-dev/toolgen/runtime/models/anthropic"
	_ "github.com/toolgen-dev/toolgen/runtime/models/openai"
	_ "github.com/toolgen-dev/toolgen/runtime/telemetry"
)
