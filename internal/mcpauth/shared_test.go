package mcpauth_test

import (
	"context"
	"encoding/base64"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/toolgen-dev/toolgen/internal/mcpauth"
	"github.com/toolgen-dev/toolgen/runtime/store"
)

func envWith(vars map[string]string) func(string) (string, bool) {
	return func(k string) (string, bool) { v, ok := vars[k]; return v, ok }
}

var testStoreKey = base64.StdEncoding.EncodeToString([]byte("0123456789abcdef0123456789abcdef"))

// Replicas sharing a store share one login: its entry sealed at rest (no
// token readable in the store), and a token that expired refreshed once
// for all of them — the authorization server rotates refresh tokens, so a
// second refresh would have been refused.
func TestSharedTokensRefreshOnce(t *testing.T) {
	w := newWorld(t)
	w.login()
	shared := newRecording()
	tokens := mcpauth.SharedTokens(shared, envWith(map[string]string{store.EnvKey: testStoreKey}))
	key := mcpauth.Key{ServerURL: w.url, Client: "dynamic"}
	if err := tokens.Save(key, w.entry()); err != nil {
		t.Fatal(err)
	}
	for _, k := range storeKeys(t, shared) {
		v, _, _ := shared.Get(context.Background(), k)
		if strings.Contains(string(v), w.entry().Token.AccessToken) || strings.Contains(string(v), w.entry().Token.RefreshToken) {
			t.Fatalf("key %s holds a token in the clear", k)
		}
	}
	w.clock.Advance(2 * time.Hour)
	var handlers []*mcpauth.Handler
	for range 4 { // four replicas, each its own handler
		cfg := w.config()
		cfg.Tokens = tokens
		h, err := mcpauth.New(cfg)
		if err != nil {
			t.Fatal(err)
		}
		mcpauth.SetClock(h, w.clock.Now)
		t.Cleanup(func() { h.Close() })
		handlers = append(handlers, h)
	}
	start := make(chan struct{})
	var wg sync.WaitGroup
	for i, h := range handlers { // all want a token at once
		wg.Go(func() {
			<-start
			if _, err := h.Token(); err != nil {
				t.Errorf("replica %d: %v", i, err)
			}
		})
	}
	close(start)
	wg.Wait()
	for i, h := range handlers {
		c, err := w.connect(h)
		if err != nil {
			t.Fatalf("replica %d: %v", i, err)
		}
		if got, err := w.call(c); err != nil || got != "user alice" {
			t.Errorf("replica %d: whoami = %q, %v", i, got, err)
		}
	}
	if n := w.as.Count("refresh"); n != 1 {
		t.Errorf("refreshes: %d, want 1 for the four replicas", n)
	}
	if e, err := tokens.Load(key); err != nil || e == nil || e.Token.AccessToken == w.entry().Token.AccessToken {
		t.Errorf("the refreshed login is not in the shared store: %v %v", e, err)
	}
}

// Without TOOLGEN_STORE_KEY nothing is stored; with another key nothing
// opens.
func TestSharedTokensNeedTheKey(t *testing.T) {
	shared := newRecording()
	key := mcpauth.Key{ServerURL: "https://mcp.example.com/mcp", Client: "dynamic"}
	e := &mcpauth.Entry{TokenURL: "https://as.example.com/token", Token: mcpauth.Token{AccessToken: "at-1"}}
	none := mcpauth.SharedTokens(shared, envWith(nil))
	if err := none.Save(key, e); err == nil || !strings.Contains(err.Error(), store.EnvKey) {
		t.Fatalf("save without a key: %v, want a refusal naming %s", err, store.EnvKey)
	}
	if len(storeKeys(t, shared)) != 0 {
		t.Fatal("something was stored without a key")
	}
	if err := mcpauth.SharedTokens(shared, envWith(map[string]string{store.EnvKey: testStoreKey})).Save(key, e); err != nil {
		t.Fatal(err)
	}
	other := base64.StdEncoding.EncodeToString([]byte("fedcba9876543210fedcba9876543210"))
	if _, err := mcpauth.SharedTokens(shared, envWith(map[string]string{store.EnvKey: other})).Load(key); err == nil || !strings.Contains(err.Error(), "does not open") {
		t.Fatalf("load with another key: %v", err)
	}
	if _, err := mcpauth.SharedTokens(shared, envWith(map[string]string{store.EnvKey: "short"})).Load(key); err == nil || !strings.Contains(err.Error(), "want 32 bytes") {
		t.Fatalf("a short key: %v", err)
	}
}

// recording is a memory store that remembers the keys written with Set.
type recording struct {
	store.Store
	mu   sync.Mutex
	keys []string
}

func newRecording() *recording { return &recording{Store: store.NewMemory()} }

func (r *recording) Set(ctx context.Context, key string, v []byte, ttl time.Duration) error {
	r.mu.Lock()
	r.keys = append(r.keys, key)
	r.mu.Unlock()
	return r.Store.Set(ctx, key, v, ttl)
}

func storeKeys(t *testing.T, r *recording) []string {
	t.Helper()
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.keys...)
}
