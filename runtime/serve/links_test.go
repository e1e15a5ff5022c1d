package serve

// The trace tests give the session OpenTelemetry providers, which only
// runtime/telemetry (linked by toolgen { telemetry = true }) records on.
import _ "github.com/toolgen-dev/toolgen/runtime/telemetry"
