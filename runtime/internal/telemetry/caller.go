package telemetry

// Traced reports whether the call is being recorded at all.
func (c Call) Traced() bool { return c.e != nil }

// SetCaller puts the caller's name (serve's inbound identity) on the
// call's span and, as a bounded label (the first callers named, the rest
// "other"), on the calls counter.
func (c Call) SetCaller(id string) {
	if s, ok := c.e.(interface{ SetCaller(string) }); ok {
		s.SetCaller(id)
	}
}
