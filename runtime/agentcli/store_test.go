package agentcli

import (
	"strings"
	"testing"
	"time"
)

func TestParseRateLimit(t *testing.T) {
	for in, want := range map[string]string{"100/1m": "100/1m0s", "5/s": "5/1s", "2/10s": "2/10s"} {
		got, err := parseRateLimit(in)
		if err != nil || got.String() != want {
			t.Errorf("parseRateLimit(%q) = %v, %v; want %s", in, got, err, want)
		}
	}
	for _, bad := range []string{"100", "0/1m", "x/1m", "5/", "5/-1s", "5/lots"} {
		if _, err := parseRateLimit(bad); err == nil || !strings.Contains(err.Error(), "--rate-limit") {
			t.Errorf("parseRateLimit(%q) = %v; want an error", bad, err)
		}
	}
	if r, _ := parseRateLimit(""); r.Calls != 0 || r.Per != time.Duration(0) {
		t.Errorf("empty: %v", r)
	}
}
