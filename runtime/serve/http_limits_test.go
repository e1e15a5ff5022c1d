package serve

import (
	"context"
	"io"
	"net/http"
	"strings"
	"testing"
)

// post sends body to url as one MCP message of session sid ("" for none)
// and returns the status and the start of the answer.
func post(t *testing.T, url, sid string, body io.Reader) (int, string) {
	t.Helper()
	req, err := http.NewRequest("POST", url, body)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if sid != "" {
		req.Header.Set("Mcp-Session-Id", sid)
		req.Header.Set("Mcp-Protocol-Version", "2025-06-18")
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("POST: %v", err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(io.LimitReader(res.Body, 4096))
	return res.StatusCode, string(b)
}

// initializeHTTP opens an MCP session by hand and returns its id.
func initializeHTTP(t *testing.T, url string) string {
	t.Helper()
	req, _ := http.NewRequest("POST", url, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, res.Body)
	res.Body.Close()
	sid := res.Header.Get("Mcp-Session-Id")
	if res.StatusCode != http.StatusOK || sid == "" {
		t.Fatalf("initialize: %s, session %q", res.Status, sid)
	}
	return sid
}

// Hostile bodies over HTTP: 100 MB (streamed, never held whole) is 413,
// 100k-deep JSON is refused; the server keeps serving, for the one-session
// Server and for Clients alike. A configured cap is the cap.
func TestHTTPHostileBodies(t *testing.T) {
	deep := `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"echo","arguments":{"a":` +
		strings.Repeat("[", 100000) + strings.Repeat("]", 100000) + `}}}`
	servers := map[string]func(Options) string{
		"Server": func(o Options) string {
			s := New(newFakeSession(), o)
			t.Cleanup(func() { s.Close() })
			return startHTTP(t, s)
		},
		"Clients": func(o Options) string {
			return startClients(t, NewClients(func(context.Context) (OwnedSession, error) { return newFakeSession(), nil }, o))
		},
	}
	for name, start := range servers {
		t.Run(name, func(t *testing.T) {
			url := start(Options{})
			sid := initializeHTTP(t, url)
			if code, _ := post(t, url, sid, io.MultiReader(strings.NewReader(`{"jsonrpc":"2.0","id":8,"method":"tools/call","params":{"name":"echo","arguments":{"text":"`),
				&repeatReader{n: 100 << 20}, strings.NewReader(`"}}}`))); code != http.StatusRequestEntityTooLarge {
				t.Errorf("100 MB body: status %d, want 413", code)
			}
			if code, body := post(t, url, sid, strings.NewReader(deep)); code != http.StatusBadRequest {
				t.Errorf("100k-deep body: status %d (%.200s), want 400", code, body)
			}
			// Without a session: Clients peeks at the body for initialize first.
			if code, _ := post(t, url, "", io.MultiReader(strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"x":"`),
				&repeatReader{n: 100 << 20}, strings.NewReader(`"}}`))); code != http.StatusRequestEntityTooLarge {
				t.Errorf("100 MB initialize: status %d, want 413", code)
			}
			if code, body := post(t, url, "", strings.NewReader(deep)); code != http.StatusBadRequest {
				t.Errorf("100k-deep body without a session: status %d (%.200s), want 400", code, body)
			}
			if code, body := post(t, url, sid, strings.NewReader(`{"jsonrpc":"2.0","id":9,"method":"tools/list"}`)); code != http.StatusOK || !strings.Contains(body, `"echo"`) {
				t.Errorf("tools/list afterwards: %d %.200s", code, body)
			}
			cs, _ := client(t, overHTTP(url))
			if res := call(t, cs, "echo", map[string]any{"text": "still here"}); !strings.Contains(text(t, res), "still here") {
				t.Errorf("a new client afterwards: %q", text(t, res))
			}

			small := start(Options{MaxMessageBytes: 64 << 10})
			sid = initializeHTTP(t, small)
			body := `{"jsonrpc":"2.0","id":10,"method":"tools/call","params":{"name":"echo","arguments":{"text":"` + strings.Repeat("z", 100<<10) + `"}}}`
			if code, _ := post(t, small, sid, strings.NewReader(body)); code != http.StatusRequestEntityTooLarge {
				t.Errorf("100 KiB body over a 64 KiB cap: status %d, want 413", code)
			}
			if code, _ := post(t, url, initializeHTTP(t, url), strings.NewReader(body)); code != http.StatusOK {
				t.Errorf("100 KiB body under the default cap: status %d, want 200", code)
			}
		})
	}
}
