package telemetry

import "go.opentelemetry.io/otel/attribute"

// Traced reports whether the call has a span.
func (c Call) Traced() bool { return c.c != nil && c.c.span != nil }

// SetCaller puts the caller's name (serve's inbound identity) on the
// call's span. Metrics leave it out: one label value per user would grow
// without bound.
func (c Call) SetCaller(id string) {
	if c.c != nil && c.c.span != nil {
		c.c.span.SetAttributes(attribute.String("toolgen.caller", id))
	}
}
