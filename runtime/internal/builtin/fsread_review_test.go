package builtin

import (
	"fmt"
	"math"
	"strings"
	"testing"
)

// Offset+Limit used to overflow for a huge limit: the page came back empty
// with a "stopped at the limit" note instead of the rest of the file.
func TestFSReadHugeLimit(t *testing.T) {
	r, _ := newReadDir(t, 0, map[string]string{"three.txt": "a\nb\nc\n", "d/x": "", "d/y": "", "d/z": ""})
	tests := []struct{ args, want string }{
		{fmt.Sprintf(`{"path":"ws/three.txt","offset":2,"limit":%d}`, int64(math.MaxInt64)), "b\nc\n"},
		{fmt.Sprintf(`{"path":"ws/three.txt","offset":1,"limit":%d}`, int64(math.MaxInt64)), "a\nb\nc\n"},
		{fmt.Sprintf(`{"path":"ws/d","offset":2,"limit":%d}`, int64(math.MaxInt64)), "y\nz\n"},
	}
	for _, tc := range tests {
		got, err := call(t, r, tc.args)
		if err != nil || got != tc.want {
			t.Errorf("%s = %q, %v; want %q", tc.args, got, err, tc.want)
		}
	}
	_, err := call(t, r, fmt.Sprintf(`{"path":"ws/three.txt","offset":%d,"limit":%d}`, int64(math.MaxInt64), int64(math.MaxInt64)))
	if err == nil || !strings.Contains(err.Error(), "past the end") {
		t.Errorf("huge offset: %v; want past the end", err)
	}
	_, err = call(t, r, fmt.Sprintf(`{"path":"ws/d","offset":%d,"limit":%d}`, int64(math.MaxInt64), int64(math.MaxInt64)))
	if err == nil || !strings.Contains(err.Error(), "past the end") {
		t.Errorf("huge dir offset: %v; want past the end", err)
	}
}
