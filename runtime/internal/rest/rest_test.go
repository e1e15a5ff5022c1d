package rest

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// seen is what the test server received, echoed back as the response body.
type seen struct {
	Method string              `json:"method"`
	URI    string              `json:"uri"`
	Body   string              `json:"body"`
	Header map[string][]string `json:"header"`
}

func newServer(t *testing.T) *httptest.Server {
	t.Helper()
	mux := http.NewServeMux()
	mux.HandleFunc("/echo/", func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(seen{Method: r.Method, URI: r.RequestURI, Body: string(body), Header: r.Header})
	})
	mux.HandleFunc("/status/{code}", func(w http.ResponseWriter, r *http.Request) {
		code, _ := strconv.Atoi(r.PathValue("code"))
		w.WriteHeader(code)
		if r.URL.Query().Has("long") {
			io.WriteString(w, strings.Repeat("x", 5000))
			return
		}
		fmt.Fprintf(w, "boom %d\n", code)
	})
	mux.HandleFunc("/slow", func(w http.ResponseWriter, r *http.Request) {
		<-r.Context().Done() // until the client gives up
	})
	mux.HandleFunc("/huge", func(w http.ResponseWriter, r *http.Request) {
		n, _ := strconv.Atoi(r.URL.Query().Get("n"))
		if r.URL.Query().Has("length") {
			w.Header().Set("Content-Length", strconv.Itoa(n))
		}
		chunk := []byte(strings.Repeat("a", 64<<10))
		for n > 0 {
			k := min(n, len(chunk))
			if _, err := w.Write(chunk[:k]); err != nil {
				return
			}
			n -= k
		}
	})
	mux.HandleFunc("/loop", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "/loop", http.StatusFound)
	})
	mux.HandleFunc("/moved", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "/echo/landed", http.StatusMovedPermanently)
	})
	mux.HandleFunc("/binary", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "image/png")
		w.Write([]byte{0x89, 'P', 'N', 'G', 0xff, 0xfe})
	})
	mux.HandleFunc("/empty", func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusNoContent)
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv
}

func mustNew(t *testing.T, spec Spec, client *http.Client) *Tool {
	t.Helper()
	tool, err := New(spec, client)
	if err != nil {
		t.Fatal(err)
	}
	return tool
}

func callSeen(t *testing.T, tool *Tool, args string) seen {
	t.Helper()
	out, err := tool.Call(context.Background(), json.RawMessage(args))
	if err != nil {
		t.Fatalf("call %s: %v", args, err)
	}
	var s seen
	if err := json.Unmarshal([]byte(out), &s); err != nil {
		t.Fatalf("response %q: %v", out, err)
	}
	return s
}

func TestExpansion(t *testing.T) {
	srv := newServer(t)
	for _, c := range []struct {
		method, url, args, wantURI, wantBody string
	}{
		// Simple expansion escapes reserved characters: the argument cannot add path segments,
		// a query or a fragment.
		{"GET", "/echo/weather/{city}", `{"city":"São Paulo/../x?y=1#z"}`,
			"/echo/weather/S%C3%A3o%20Paulo%2F..%2Fx%3Fy%3D1%23z", ""},
		// Unused arguments become the query, sorted; arrays repeat the name; numbers keep their text.
		{"GET", "/echo/weather/{city}", `{"city":"Oslo","units":"metric","days":3,"tags":["a b","c&d"],"big":12345678901234567890,"skip":null}`,
			"/echo/weather/Oslo?big=12345678901234567890&days=3&tags=a+b&tags=c%26d&units=metric", ""},
		{"GET", "/echo/search{?q,limit}", `{"q":"a&b=c d","limit":5}`, "/echo/search?q=a%26b%3Dc%20d&limit=5", ""},
		{"GET", "/echo/search{?q,limit}", `{"q":"only"}`, "/echo/search?q=only", ""},
		{"GET", "/echo/search?fixed=1{&q}", `{"q":"x","extra":true}`, "/echo/search?fixed=1&q=x&extra=true", ""},
		{"GET", "/echo/files{/path*}", `{"path":["a","b c"]}`, "/echo/files/a/b%20c", ""},
		{"GET", "/echo/raw/{+path}", `{"path":"dir/file.txt"}`, "/echo/raw/dir/file.txt", ""},
		{"GET", "/echo/m{;x,y}", `{"x":1,"y":true}`, "/echo/m;x=1;y=true", ""},
		{"GET", "/echo/kv{?filter*}", `{"filter":{"b":"2","a":"1"}}`, "/echo/kv?a=1&b=2", ""},
		{"GET", "/echo/obj", `{"where":{"a":[1,2]}}`, "/echo/obj?where=%7B%22a%22%3A%5B1%2C2%5D%7D", ""},
		{"DELETE", "/echo/items/{id}", `{"id":42,"force":true}`, "/echo/items/42?force=true", ""},
		// Bodies: unused arguments as a JSON object, numbers exact, nested values intact.
		{"POST", "/echo/items/{id}", `{"id":7,"name":"x","big":12345678901234567890,"nested":{"a":[1,2.50]}}`,
			"/echo/items/7", `{"big":12345678901234567890,"name":"x","nested":{"a":[1,2.50]}}`},
		{"put", "/echo/items/{id}", `{"id":"a/b"}`, "/echo/items/a%2Fb", `{}`},
		{"PATCH", "/echo/items", ``, "/echo/items", `{}`},
	} {
		tool := mustNew(t, Spec{Method: c.method, URL: srv.URL + c.url}, nil)
		got := callSeen(t, tool, c.args)
		if got.URI != c.wantURI || got.Body != c.wantBody || got.Method != strings.ToUpper(c.method) {
			t.Errorf("%s %s %s:\n got %s %s body %q\nwant %s %s body %q", c.method, c.url, c.args,
				got.Method, got.URI, got.Body, strings.ToUpper(c.method), c.wantURI, c.wantBody)
		}
		if c.wantBody != "" && got.Header["Content-Type"][0] != "application/json" {
			t.Errorf("%s: Content-Type %q", c.url, got.Header["Content-Type"])
		}
	}
}

func TestHeaders(t *testing.T) {
	srv := newServer(t)
	tool := mustNew(t, Spec{Method: "POST", URL: srv.URL + "/echo/h", Headers: []Header{
		{"Authorization", "Bearer s3cret"},
		{"X-Multi", "one"},
		{"X-Multi", "two"},
		{"Content-Type", "application/vnd.api+json"},
	}}, nil)
	got := callSeen(t, tool, `{"a":1}`)
	for k, want := range map[string]string{
		"Authorization": "Bearer s3cret",
		"X-Multi":       "one,two",
		"Content-Type":  "application/vnd.api+json",
		"User-Agent":    "toolgen-rest",
	} {
		if v := strings.Join(got.Header[k], ","); v != want {
			t.Errorf("header %s = %q, want %q", k, v, want)
		}
	}
}

func TestCallErrors(t *testing.T) {
	srv := newServer(t)
	weather := Spec{URL: srv.URL + "/echo/weather/{city}{?units}",
		InputSchema: json.RawMessage(`{"type":"object","properties":{"city":{"type":"string"},"units":{"type":"string"}},"required":["city","units"]}`)}
	for _, c := range []struct {
		name    string
		spec    Spec
		args    string
		wantErr string
		ctx     func() (context.Context, context.CancelFunc)
	}{
		{name: "404", spec: Spec{URL: srv.URL + "/status/404"}, wantErr: "GET " + srv.URL + "/status/404: HTTP 404 Not Found: boom 404"},
		{name: "500", spec: Spec{URL: srv.URL + "/status/500"}, wantErr: "HTTP 500 Internal Server Error: boom 500"},
		{name: "500 long body is cut", spec: Spec{URL: srv.URL + "/status/500{?long}"}, args: `{"long":1}`,
			wantErr: "HTTP 500 Internal Server Error: " + strings.Repeat("x", 1023) + " …"},
		{name: "query secrets stay out of messages", spec: Spec{URL: srv.URL + "/status/403?api_key=TOPSECRET"},
			wantErr: "GET " + srv.URL + "/status/403: HTTP 403 Forbidden"},
		{name: "slow server, deadline", spec: Spec{URL: srv.URL + "/slow"}, wantErr: "GET " + srv.URL + "/slow: timed out (context deadline exceeded)",
			ctx: func() (context.Context, context.CancelFunc) {
				return context.WithTimeout(context.Background(), 100*time.Millisecond)
			}},
		{name: "slow server, cancelled", spec: Spec{URL: srv.URL + "/slow"}, wantErr: "cancelled: context canceled",
			ctx: func() (context.Context, context.CancelFunc) {
				ctx, cancel := context.WithCancel(context.Background())
				time.AfterFunc(100*time.Millisecond, cancel)
				return ctx, cancel
			}},
		{name: "huge chunked body", spec: Spec{URL: srv.URL + "/huge?n=11534336"}, wantErr: "the response is larger than the 10485760-byte limit"},
		{name: "huge body with length", spec: Spec{URL: srv.URL + "/huge?length&n=11534336"}, wantErr: "the response is 11534336 bytes, over the 10485760-byte limit"},
		{name: "spec cap", spec: Spec{URL: srv.URL + "/huge?n=101", MaxResponseBytes: 100}, wantErr: "over the 100-byte limit"},
		{name: "redirect loop", spec: Spec{URL: srv.URL + "/loop"}, wantErr: "stopped after 5 redirects"},
		{name: "binary body", spec: Spec{URL: srv.URL + "/binary"}, wantErr: "the response is not text (6 bytes of image/png)"},
		{name: "invalid JSON", spec: weather, args: `{"city":`, wantErr: "invalid arguments: truncated JSON"},
		{name: "malformed JSON", spec: weather, args: `{city:1}`, wantErr: "invalid arguments: malformed JSON at byte 2"},
		{name: "array args", spec: weather, args: `["Oslo"]`, wantErr: "invalid arguments: expected a JSON object, got array"},
		{name: "trailing data", spec: weather, args: `{"city":"x"} 1`, wantErr: "invalid arguments"},
		{name: "template variable missing", spec: Spec{URL: srv.URL + "/echo/weather/{city}?key=TOPSECRET"}, args: `{"town":"Oslo"}`,
			wantErr: `missing required argument "city": the URL ` + srv.URL + `/echo/weather/{city}?… needs it`},
		{name: "template variable null", spec: Spec{URL: srv.URL + "/echo/weather/{city}"}, args: `{"city":null}`, wantErr: `missing required argument "city"`},
		{name: "template variable empty", spec: Spec{URL: srv.URL + "/echo/weather/{city}"}, args: `{"city":""}`, wantErr: `argument "city" is empty`},
		{name: "no arguments at all", spec: Spec{URL: srv.URL + "/echo/weather/{city}"}, args: ``, wantErr: `missing required argument "city"`},
		{name: "schema-required query argument", spec: weather, args: `{"city":"Oslo"}`, wantErr: `missing required argument "units"`},
		{name: "nested value in the path", spec: Spec{URL: srv.URL + "/echo/{id}"}, args: `{"id":{"a":{"b":1}}}`, wantErr: `argument "id": an object used in the URL may hold only`},
		{name: "host hijack through {+path}", spec: Spec{URL: srv.URL + "{+path}"}, args: `{"path":"@evil.example/x"}`, wantErr: "the arguments change the URL's host (http://evil.example/x)"},
		{name: "host change through {+path}", spec: Spec{URL: srv.URL + "{+path}"}, args: `{"path":".evil.example/x"}`, wantErr: "the arguments make an invalid URL"},
		{name: "connection refused", spec: Spec{URL: "http://127.0.0.1:1/x"}, wantErr: "GET http://127.0.0.1:1/x: dial tcp 127.0.0.1:1: connect: connection refused"},
	} {
		t.Run(c.name, func(t *testing.T) {
			ctx, cancel := context.Background(), context.CancelFunc(func() {})
			if c.ctx != nil {
				ctx, cancel = c.ctx()
			}
			defer cancel()
			tool := mustNew(t, c.spec, nil)
			got, err := tool.Call(ctx, json.RawMessage(c.args))
			if err == nil || !strings.Contains(err.Error(), c.wantErr) {
				t.Fatalf("got %.100q, %.300v; want error containing %.300q", got, err, c.wantErr)
			}
			if strings.Contains(err.Error(), "TOPSECRET") {
				t.Errorf("error leaks a query secret: %v", err)
			}
		})
	}
}

func TestResponses(t *testing.T) {
	srv := newServer(t)
	if got, err := mustNew(t, Spec{URL: srv.URL + "/empty"}, nil).Call(context.Background(), nil); err != nil || got != "(empty response, HTTP 204 No Content)" {
		t.Errorf("204 = %q, %v", got, err)
	}
	if got := callSeen(t, mustNew(t, Spec{URL: srv.URL + "/moved"}, nil), `{}`); got.URI != "/echo/landed" {
		t.Errorf("redirect landed on %q", got.URI)
	}
	// The cap is inclusive: a body of exactly MaxResponseBytes is returned whole.
	if got, err := mustNew(t, Spec{URL: srv.URL + "/huge?n=100", MaxResponseBytes: 100}, nil).Call(context.Background(), nil); err != nil || len(got) != 100 {
		t.Errorf("body at the cap: %d bytes, %v", len(got), err)
	}
	// A caller's own redirect policy is kept; the caller's client is not modified.
	client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	if _, err := mustNew(t, Spec{URL: srv.URL + "/moved"}, client).Call(context.Background(), nil); err == nil || !strings.Contains(err.Error(), "HTTP 301") {
		t.Errorf("caller's redirect policy: %v", err)
	}
	plain := &http.Client{}
	mustNew(t, Spec{URL: srv.URL + "/x"}, plain)
	if plain.CheckRedirect != nil {
		t.Error("New modified the caller's client")
	}
}

func TestNewErrors(t *testing.T) {
	for _, c := range []struct {
		spec    Spec
		wantErr string
	}{
		{Spec{URL: "https://api.example/{city"}, `rest: invalid URL template "https://api.example/{city": incomplete expression at character 26`},
		{Spec{URL: "https://user:abc@api.example/{ci ty}?key=abc"}, `rest: invalid URL template "https://…@api.example/{ci ty}?…": unacceptable variable name at character 33`},
		{Spec{URL: "https://api.example/{ci ty}"}, "rest: invalid URL template"},
		{Spec{URL: "https://api.example/{|x}"}, "rest: invalid URL template"},
		{Spec{URL: "ftp://api.example/x"}, "must start with http:// or https://"},
		{Spec{URL: "{+base}/x"}, "must start with http:// or https://"},
		{Spec{URL: ""}, "must start with http:// or https://"},
		{Spec{Method: "GE T", URL: "https://api.example/"}, `rest: invalid method "GE T"`},
		{Spec{URL: "https://api.example/", Headers: []Header{{"Bad Name", "v"}}}, `rest: invalid header name "Bad Name"`},
		{Spec{URL: "https://api.example/", Headers: []Header{{"X-Key", "abc\r\nX-Evil: 1"}}}, `rest: header "X-Key" has a value with a line break`},
		{Spec{URL: "https://api.example/", InputSchema: json.RawMessage(`{"required":`)}, "rest: input schema"},
	} {
		_, err := New(c.spec, nil)
		if err == nil || !strings.Contains(err.Error(), c.wantErr) {
			t.Errorf("New(%+v): %v; want %q", c.spec, err, c.wantErr)
		}
		if err != nil && strings.Contains(err.Error(), "abc") {
			t.Errorf("error leaks a header value: %v", err)
		}
	}
}

func TestConcurrentCalls(t *testing.T) {
	srv := newServer(t)
	tool := mustNew(t, Spec{URL: srv.URL + "/echo/n/{n}"}, nil)
	var wg sync.WaitGroup
	for i := range 16 {
		wg.Go(func() {
			out, err := tool.Call(context.Background(), json.RawMessage(`{"n":`+strconv.Itoa(i)+`}`))
			if err != nil || !strings.Contains(out, `"uri":"/echo/n/`+strconv.Itoa(i)+`"`) {
				t.Errorf("call %d = %q, %v", i, out, err)
			}
		})
	}
	wg.Wait()
}

// An argument that is a dot segment ("..", ".", or percent-encoded) would
// move the request up the API's path (GET /v1/.. with the bearer token):
// it is refused, and nothing reaches the server.
func TestDotSegmentArgumentsRefused(t *testing.T) {
	var mu sync.Mutex
	var got []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		got = append(got, r.RequestURI)
		mu.Unlock()
		io.WriteString(w, "ok")
	}))
	defer srv.Close()
	simple := mustNew(t, Spec{URL: srv.URL + "/v1/items/{id}/detail"}, nil)
	reserved := mustNew(t, Spec{URL: srv.URL + "/v1/files/{+path}"}, nil)
	dotted := mustNew(t, Spec{URL: srv.URL + "/v1{/seg*}"}, nil)
	for _, c := range []struct {
		tool *Tool
		args string
	}{
		{simple, `{"id":".."}`},
		{simple, `{"id":"."}`},
		{reserved, `{"path":"a/../../admin"}`},
		{reserved, `{"path":"%2e%2E/admin"}`},
		{reserved, `{"path":"./x"}`},
		{dotted, `{"seg":["a",".."]}`},
	} {
		if _, err := c.tool.Call(context.Background(), json.RawMessage(c.args)); err == nil || !strings.Contains(err.Error(), "dot segment") {
			t.Errorf("%s with %s: err = %v, want a dot segment refusal", c.tool.raw, c.args, err)
		}
	}
	for _, args := range []string{`{"id":"..."}`, `{"id":"a.b"}`} {
		if _, err := simple.Call(context.Background(), json.RawMessage(args)); err != nil {
			t.Errorf("%s: %v", args, err)
		}
	}
	mu.Lock()
	defer mu.Unlock()
	if len(got) != 2 {
		t.Errorf("the server got %v, want only the two ordinary calls", got)
	}
}
