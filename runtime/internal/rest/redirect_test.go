package rest

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
)

// A redirect to another origin would carry the tool's headers (API keys)
// there: it is refused, and the other server never sees a request.
func TestCrossOriginRedirectRefused(t *testing.T) {
	var reached atomic.Int32
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		reached.Add(1)
		if r.Header.Get("X-Api-Key") != "" {
			t.Errorf("the other origin received the API key")
		}
	}))
	defer other.Close()
	api := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, other.URL+"/steal", http.StatusFound)
	}))
	defer api.Close()
	tool := mustNew(t, Spec{Method: "GET", URL: api.URL + "/v1", Headers: []Header{{Key: "X-Api-Key", Value: "SECRET"}}}, nil)
	_, err := tool.Call(context.Background(), json.RawMessage(`{}`))
	if err == nil || !strings.Contains(err.Error(), "another origin") {
		t.Fatalf("err = %v, want a refused cross-origin redirect", err)
	}
	if strings.Contains(err.Error(), "SECRET") {
		t.Errorf("error shows the secret: %v", err)
	}
	if reached.Load() != 0 {
		t.Errorf("the other origin was reached %d times", reached.Load())
	}
}

// A secret in the URL's path (a bot token, say) never shows in an error.
func TestSecretInPathNotInErrors(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "boom", http.StatusInternalServerError)
	}))
	defer srv.Close()
	const secret = "tok-en_42SECRET"
	for _, url := range []string{srv.URL + "/bot" + secret + "/send/{chat}", srv.URL + "/v1/{chat}?key=" + secret} {
		tool, err := New(Spec{Method: "GET", URL: url, Secrets: []string{secret}}, nil)
		if err != nil {
			if strings.Contains(err.Error(), "SECRET") {
				t.Errorf("New error shows the secret: %v", err)
			}
			continue
		}
		_, err = tool.Call(context.Background(), json.RawMessage(`{"chat":"x"}`))
		if err == nil {
			t.Fatalf("%s: want an HTTP 500 error", url)
		}
		if strings.Contains(err.Error(), "SECRET") {
			t.Errorf("error shows the secret: %v", err)
		}
	}
	// A template error names the template, scrubbed too.
	if _, err := New(Spec{Method: "GET", URL: "http://api/bot" + secret + "/{", Secrets: []string{secret}}, nil); err == nil || strings.Contains(err.Error(), "SECRET") {
		t.Errorf("template error = %v", err)
	}
}
