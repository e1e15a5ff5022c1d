package agentcli_test

// The tests serve /metrics and export OTLP, which only the linked
// OpenTelemetry SDK does (`toolgen { telemetry = true }` in a spec).
import _ "github.com/toolgen-dev/toolgen/runtime/telemetry"
