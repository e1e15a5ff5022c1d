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
