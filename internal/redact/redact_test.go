package redact

import (
	"encoding/json"
	"errors"
	"log/slog"
	"strings"
	"testing"
)

func TestString(t *testing.T) {
	for _, c := range []struct{ text, want string }{
		{`GET http://api/botSEC-1234/send: HTTP 500`, `GET http://api/bot[redacted]/send: HTTP 500`},
		{`Post "http://h/top%20secret%23K/mcp": refused`, `Post "http://h/[redacted]/mcp": refused`},
		{`q=top+secret%23K`, `q=[redacted]`},
		{`nothing here`, `nothing here`},
	} {
		if got := String(c.text, []string{"SEC-1234", "top secret#K", ""}); got != c.want {
			t.Errorf("String(%q) = %q, want %q", c.text, got, c.want)
		}
	}
}

// A value under MinLen bytes is left alone: GITHUB_TOKEN=x once turned
// every "exec" into "e[redacted]ec".
func TestShortValuesAreNotScrubbed(t *testing.T) {
	text := "exec xterm; prod=1"
	for _, v := range []string{"x", "1", "prod", "7 bytes"} {
		if !Short(v) {
			t.Errorf("Short(%q) = false", v)
		}
		if got := String(text, []string{v}); got != text {
			t.Errorf("String with %q = %q, want the text unchanged", v, got)
		}
	}
	if New([]string{"x", "", "short"}) != nil {
		t.Error("New of short values only is not nil")
	}
	if got := String("k=8bytes!!", []string{"8bytes!!"}); got != "k=[redacted]" {
		t.Errorf("an 8-byte value: %q", got)
	}
}

// A secret inside a JSON string comes back escaped: a result that prints
// an environment as JSON must not carry it in that form either.
func TestJSONEscapedForm(t *testing.T) {
	secret := `tok"en\path<&>` + "\t42"
	r := New([]string{secret})
	b, _ := json.Marshal(map[string]string{"API_TOKEN": secret})
	js := `{"API_TOKEN":"tok\"en\\path<&>\t42"}` // JSON.stringify's form: no HTML escaping
	for _, text := range []string{string(b), js, "raw " + secret} {
		got := r.String(text)
		if strings.Contains(got, "tok") || !strings.Contains(got, Mark) {
			t.Errorf("String(%s) = %s", text, got)
		}
	}
}

// A secret that contains another is replaced whole, not around the inner one.
func TestLongestFirst(t *testing.T) {
	r := New([]string{"abcdefgh", "abcdefgh-and-more"})
	if got := r.String("x abcdefgh-and-more y abcdefgh"); got != "x [redacted] y [redacted]" {
		t.Errorf("got %q", got)
	}
}

func TestNilRedactor(t *testing.T) {
	var r *Redactor
	if got := r.String("anything"); got != "anything" {
		t.Errorf("nil Redactor changed the text: %q", got)
	}
}

func BenchmarkRedactor(b *testing.B) {
	r := New([]string{"ghp_0123456789abcdefghijklmnopqrstuvwxyz", "sk-live-00000000000000"})
	clean := strings.Repeat("a tool result without any secret in it. ", 100)
	b.Run("clean-4KB", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			_ = r.String(clean)
		}
	})
	dirty := clean + "ghp_0123456789abcdefghijklmnopqrstuvwxyz"
	b.Run("secret-4KB", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			_ = r.String(dirty)
		}
	})
}

// Every attribute of a record is scrubbed on its way to the next handler,
// JSON included: strings, errors, groups, and attributes given by With.
func TestHandlerScrubsRecords(t *testing.T) {
	r := New([]string{"tok-0123456789"})
	var b strings.Builder
	log := slog.New(r.Handler(slog.NewJSONHandler(&b, nil))).With("server", "x tok-0123456789")
	log.Warn("tool.blocked tok-0123456789", "tool", "tok-0123456789", "error", errors.New("bad tok-0123456789"),
		slog.Group("args", "key", "tok-0123456789"), "list", []string{"tok-0123456789"}, "n", 3)
	if strings.Contains(b.String(), "0123456789") || strings.Count(b.String(), Mark) != 6 || !strings.Contains(b.String(), `"n":3`) {
		t.Errorf("log line = %s", b.String())
	}
}
