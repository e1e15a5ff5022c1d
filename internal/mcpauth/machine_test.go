package mcpauth_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/toolgen-dev/toolgen/internal/mcpauth"
	"github.com/toolgen-dev/toolgen/internal/mcpconn"
)

// TestClientCredentialsRenewsAfterExpiry: an agent without a user gets its
// token on the server's first 401, sends the resource it wants (RFC 8707),
// and gets a new one when it expires, long after the connect that started
// it ended (go-sdk's extauth.ClientCredentialsHandler binds its token
// source to that connect's context and fails here with "context
// canceled"). Nothing is stored.
func TestClientCredentialsRenewsAfterExpiry(t *testing.T) {
	w := newWorld(t)
	id, secret := w.as.PreRegister()
	cfg := w.config()
	cfg.Mode, cfg.ClientID, cfg.ClientSecret = mcpauth.ModeClientCredentials, id, secret
	h, err := mcpauth.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	mcpauth.SetClock(h, w.clock.Now)
	m := mcpconn.NewManager(w.log)
	defer m.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	c, err := m.Acquire(ctx, mcpconn.Config{Name: "docs", Transport: mcpconn.TransportHTTP, URL: w.url, OAuth: h})
	cancel()
	if err != nil {
		t.Fatal(err)
	}
	defer c.Release()
	if got, err := w.call(c); err != nil || got != "user alice" {
		t.Fatalf("whoami = %q, %v", got, err)
	}
	w.clock.Advance(2 * time.Hour)
	if got, err := w.call(c); err != nil || got != "user alice" {
		t.Fatalf("whoami after expiry = %q, %v", got, err)
	}
	if n := w.as.Count("client_credentials"); n != 2 {
		t.Errorf("client credentials grants: %d, want 2", n)
	}
	if e, _ := cfg.Store.Load(mcpauth.Key{ServerURL: w.url, Client: id}); e != nil {
		t.Error("client-credentials token written to the store")
	}
	// Wrong secret: a clear error, the secret nowhere in it.
	cfg.ClientSecret = "wrong-secret-value"
	h2, err := mcpauth.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer h2.Close()
	m2 := mcpconn.NewManager(w.log)
	defer m2.Close()
	_, err = m2.Acquire(context.Background(), mcpconn.Config{Name: "docs", Transport: mcpconn.TransportHTTP, URL: w.url, OAuth: h2})
	if err == nil || !strings.Contains(err.Error(), "invalid_client") || strings.Contains(err.Error(), "wrong-secret-value") {
		t.Errorf("wrong secret: %v", err)
	}
}
