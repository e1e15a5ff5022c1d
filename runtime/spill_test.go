package runtime

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/toolgen-dev/toolgen/runtime/decl"
	"github.com/toolgen-dev/toolgen/runtime/internal/pipeline"
)

// spillFixture is an agent whose tool "big" returns out, with a size cap
// small enough that out is spilled.
func spillFixture(t *testing.T, out string, maxBytes int, opts func(*Options)) *Session {
	t.Helper()
	f := newFixture(decl.Agent{Name: "a", Use: append(useTools("big"), useRuntime(decl.ToolOutputRead)...)}).withTools(decl.Tool{Name: "big", Kind: decl.KindGo,
		Go: func(context.Context, json.RawMessage) (json.RawMessage, error) { return json.RawMessage(out), nil }})
	f.reg.Defaults.ResponseMaxBytes = maxBytes
	o := f.opts(&events{})
	if opts != nil {
		opts(&o)
	}
	return open(t, f.reg, "a", o)
}

func spillHandle(t *testing.T, s *Session) string {
	t.Helper()
	var h struct {
		ToolOutput pipeline.ToolOutput `json:"tool_output"`
	}
	out := mustOK(t, call(t, s, "big", `{}`))
	if err := json.Unmarshal([]byte(out), &h); err != nil || h.ToolOutput.Handle == "" {
		t.Fatalf("not a tool_output handle: %v: %s", err, out)
	}
	return h.ToolOutput.Handle
}

// Pages cut at arbitrary byte offsets split multi-byte runes, which JSON
// turned into U+FFFD: the pages no longer reassembled.
func TestOutputReadKeepsRunesWhole(t *testing.T) {
	for _, c := range []struct {
		name, out string
		limit     int
	}{
		{"two-byte", strings.Repeat("é", 100), 31},
		{"mixed", strings.Repeat("aé✓😀", 40), 7},
		{"rune longer than the page", strings.Repeat("😀", 30), 1},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := spillFixture(t, c.out, 64, nil)
			handle := spillHandle(t, s)
			var got strings.Builder
			offset := 0
			for pages := 0; ; pages++ {
				if pages > len(c.out) {
					t.Fatal("paging does not advance")
				}
				out := mustOK(t, call(t, s, decl.ToolOutputRead, fmt.Sprintf(`{"handle":%q,"offset":%d,"limit":%d}`, handle, offset, c.limit)))
				var p struct {
					Content    string
					Bytes      int
					NextOffset int `json:"next_offset"`
					EOF        bool
				}
				if err := json.Unmarshal([]byte(out), &p); err != nil {
					t.Fatal(err)
				}
				if strings.ContainsRune(p.Content, utf8.RuneError) {
					t.Fatalf("page at %d holds a broken rune: %q", offset, p.Content)
				}
				if p.NextOffset != offset+len(p.Content) || p.Bytes != len(p.Content) {
					t.Fatalf("page at %d: next_offset %d, bytes %d, content %d bytes", offset, p.NextOffset, p.Bytes, len(p.Content))
				}
				got.WriteString(p.Content)
				offset = p.NextOffset
				if p.EOF {
					break
				}
			}
			if got.String() != c.out {
				t.Errorf("pages reassemble to %q; want %q", got.String(), c.out)
			}
		})
	}
}

// With Options.SpillDir set, each agent context's session-* directory was
// kept after Close, and nothing bounded how much a session stored.
func TestSpillDirCleanedAndCapped(t *testing.T) {
	base := t.TempDir()
	out := strings.Repeat("x", 200)
	defer func(old int64) { pipeline.SpillLimit = old }(pipeline.SpillLimit)
	pipeline.SpillLimit = 500

	f := newFixture(decl.Agent{Name: "a", Use: append(useTools("big"), useRuntime(decl.ToolOutputRead)...)}).withTools(decl.Tool{Name: "big", Kind: decl.KindGo,
		Go: func(context.Context, json.RawMessage) (json.RawMessage, error) { return json.RawMessage(out), nil }})
	f.reg.Defaults.ResponseMaxBytes = 64
	o := f.opts(&events{})
	o.SpillDir = base
	s, err := Open(context.Background(), f.reg, "a", o)
	if err != nil {
		t.Fatal(err)
	}
	first := spillHandle(t, s)
	spillHandle(t, s)
	r := call(t, s, "big", `{}`)
	if r.OK || !strings.HasPrefix(r.Error, "spill limit exceeded") {
		t.Errorf("third 200-byte output under a 500-byte limit: %+v", r)
	}
	// what was stored stays readable
	if page := mustOK(t, call(t, s, decl.ToolOutputRead, fmt.Sprintf(`{"handle":%q}`, first))); !strings.Contains(page, `"total_bytes":200`) {
		t.Errorf("reading a stored output after the limit: %s", page)
	}
	entries, _ := os.ReadDir(base)
	if len(entries) != 1 || !strings.HasPrefix(entries[0].Name(), "session-") {
		t.Fatalf("SpillDir holds %v; want one session-* directory", entries)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	entries, err = os.ReadDir(base)
	if err != nil || len(entries) != 0 {
		t.Errorf("after Close SpillDir holds %v (%v); want it empty and still there", entries, err)
	}
}
