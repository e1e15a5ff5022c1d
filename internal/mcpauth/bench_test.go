package mcpauth

import (
	"testing"
	"time"
)

// BenchmarkToken is what every request to an OAuth server pays: the
// stored token, still fresh, handed to the transport.
func BenchmarkToken(b *testing.B) {
	s := OpenStore(b.TempDir())
	cfg := Config{Server: "docs", URL: "https://docs.example/mcp", Store: s}
	if err := s.Save(cfg.key(), &Entry{Token: Token{AccessToken: "access-0123456789", RefreshToken: "r", Expiry: time.Now().Add(time.Hour)}, SavedAt: time.Now()}); err != nil {
		b.Fatal(err)
	}
	h, err := New(cfg)
	if err != nil {
		b.Fatal(err)
	}
	defer h.Close()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := h.Token(); err != nil {
			b.Fatal(err)
		}
	}
}
