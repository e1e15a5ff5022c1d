package telemetry

// Traced reports whether the call is being recorded at all.
func (c Call) Traced() bool { return c.e != nil }

// SetCaller puts the caller's name (serve's inbound identity) on the
// call's span, when the recorder keeps spans. Metrics leave it out: one
// label value per user would grow without bound.
func (c Call) SetCaller(id string) {
	if s, ok := c.e.(interface{ SetCaller(string) }); ok {
		s.SetCaller(id)
	}
}
