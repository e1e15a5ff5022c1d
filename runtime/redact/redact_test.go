package redact

import "testing"

func TestString(t *testing.T) {
	for _, c := range []struct{ text, want string }{
		{`GET http://api/botSEC-123/send: HTTP 500`, `GET http://api/bot[redacted]/send: HTTP 500`},
		{`Post "http://h/top%20secret%23K/mcp": refused`, `Post "http://h/[redacted]/mcp": refused`},
		{`q=top+secret%23K`, `q=[redacted]`},
		{`nothing here`, `nothing here`},
	} {
		if got := String(c.text, []string{"SEC-123", "top secret#K", ""}); got != c.want {
			t.Errorf("String(%q) = %q, want %q", c.text, got, c.want)
		}
	}
}
