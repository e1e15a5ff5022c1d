package rest

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
)

// BenchmarkCall compares a REST tool call with a bare http.Client.Get of the same URL on the
// same keep-alive transport; the difference is template expansion, argument handling and
// response checks.
func BenchmarkCall(b *testing.B) {
	body := []byte(`{"city":"Oslo","temp_c":4.5,"conditions":"light rain"}`)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Write(body)
	}))
	defer srv.Close()
	client := srv.Client()

	b.Run("http.Client.Get", func(b *testing.B) {
		for b.Loop() {
			resp, err := client.Get(srv.URL + "/v1/weather/Oslo?units=metric")
			if err != nil {
				b.Fatal(err)
			}
			got, err := io.ReadAll(resp.Body)
			resp.Body.Close()
			if err != nil || len(got) != len(body) {
				b.Fatal(err)
			}
		}
	})
	tool, err := New(Spec{URL: srv.URL + "/v1/weather/{city}", Headers: []Header{{"Authorization", "Bearer x"}}}, client)
	if err != nil {
		b.Fatal(err)
	}
	args := json.RawMessage(`{"city":"Oslo","units":"metric"}`)
	b.Run("rest.Tool.Call", func(b *testing.B) {
		for b.Loop() {
			got, err := tool.Call(context.Background(), args)
			if err != nil || len(got) != len(body) {
				b.Fatal(err)
			}
		}
	})
}
