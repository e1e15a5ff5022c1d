package mcpauth

import "time"

// SetClock makes h read the time from now (a test's clock).
func SetClock(h *Handler, now func() time.Time) { h.now = now }

// WaitBackground waits for h's background refreshes.
func WaitBackground(h *Handler) { h.refresh.Wait() }
