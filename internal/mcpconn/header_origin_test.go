package mcpconn

import (
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
)

// Configured headers go to the server's own origin only: a redirect to
// another host must not carry its credentials.
func TestHeadersOnlyToConfiguredOrigin(t *testing.T) {
	var leaked, seen atomic.Int32
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "" || r.Header.Get("X-Api-Key") != "" {
			leaked.Add(1)
		}
	}))
	defer other.Close()
	own := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") == "Bearer SECRET" && r.Header.Get("X-Api-Key") == "k" {
			seen.Add(1)
		}
		http.Redirect(w, r, other.URL+"/mcp", http.StatusTemporaryRedirect)
	}))
	defer own.Close()
	cfg := &Config{Name: "s", Transport: TransportHTTP, URL: own.URL + "/mcp",
		Headers: map[string]string{"Authorization": "Bearer SECRET", "X-Api-Key": "k"}}
	_, client := httpClient(cfg)
	resp, err := client.Get(cfg.URL)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if seen.Load() != 1 {
		t.Errorf("the configured server saw its headers %d times, want 1", seen.Load())
	}
	if leaked.Load() != 0 {
		t.Errorf("credentials followed the redirect to another origin %d times", leaked.Load())
	}
}
