package rest

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/yosida95/uritemplate/v3"
)

// FuzzTool builds a tool from an arbitrary template and calls it with arbitrary arguments
// against a loopback server: New and Call must return errors, never panic, and a call must
// never reach another host.
func FuzzTool(f *testing.F) {
	for _, seed := range [][2]string{
		{"/v1/{city}", `{"city":"Oslo","units":"metric"}`},
		{"{+path}", `{"path":"@evil.example/x"}`},
		{"/a{/p*}{?q,r}{&s}{#f}", `{"p":["a","b"],"q":{"k":"v"},"s":null,"f":"x"}`},
		{"/{x:3}{;y*}", `{"x":"ååå","y":{"a":"1"}}`},
		{"/{x", `{}`},
		{"/{x}", `[1]`},
	} {
		f.Add(seed[0], seed[1])
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Write([]byte("ok"))
	}))
	defer srv.Close()
	f.Fuzz(func(t *testing.T, tmpl, args string) {
		for _, method := range []string{"GET", "POST"} {
			tool, err := New(Spec{Method: method, URL: srv.URL + tmpl}, srv.Client())
			if err != nil {
				return
			}
			out, err := tool.Call(context.Background(), json.RawMessage(args))
			if err == nil && out != "ok" {
				t.Fatalf("%s %q %q = %q", method, tmpl, args, out)
			}
		}
	})
}

// FuzzExpandMatchesLibrary checks the UTF-8-correct expansion against uritemplate's on ASCII
// values, where the library is right.
func FuzzExpandMatchesLibrary(f *testing.F) {
	for _, ex := range rfcExamples {
		f.Add(ex[0], "a b", "x/y", "k")
	}
	f.Fuzz(func(t *testing.T, tmpl, s, item, key string) {
		for _, v := range []string{s, item, key} {
			for i := 0; i < len(v); i++ {
				if v[i] >= 0x80 || v[i] == 0 || v[i] == '%' { // the library mis-encodes non-ASCII and drops NUL; "%" triplets are kept
					return
				}
			}
		}
		if item == "" {
			return // the library writes an unnamed exploded pair with an empty value as "k,", the RFC as "k="
		}
		for i := 0; i < len(key); i++ {
			if !isUnreserved(key[i]) { // the library never escapes keys of exploded named pairs
				return
			}
		}
		lib, err := uritemplate.New(tmpl)
		if err != nil || strings.ContainsAny(tmpl, "%") || !isASCII(tmpl) {
			return // the library copies non-ASCII literals raw; RFC 6570 §3.1 encodes them
		}
		values := uritemplate.Values{}
		for _, name := range lib.Varnames() {
			switch len(name) % 3 {
			case 0:
				values.Set(name, uritemplate.String(s))
			case 1:
				values.Set(name, uritemplate.List(s, item))
			case 2:
				values.Set(name, uritemplate.KV(key, item))
			}
		}
		want, err := lib.Expand(values)
		if err != nil {
			return
		}
		if got := expandTemplate(compileTemplate(tmpl), values); got != want {
			t.Fatalf("%q with s=%q item=%q key=%q: got %q, uritemplate %q", tmpl, s, item, key, got, want)
		}
	})
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}
