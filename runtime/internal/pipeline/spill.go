package pipeline

import (
	"cmp"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/toolgen-dev/toolgen/runtime/store"
)

// Spill keeps outputs over response_max_bytes on disk and hands out
// handles that output_read pages through. Handles are opaque names looked
// up in a map, never paths, so a caller cannot reach other files.
//
// A shared Spill (NewSharedSpill) keeps them in the store every replica
// reads instead, under the caller's name and a random handle: output_read
// on any replica finds an output stored on another, and one caller cannot
// read another's.
type Spill struct {
	base string // Options.SpillDir, or "" for a temp dir per agent context

	shared store.Store // nil: on local disk
	scope  string      // key part before the caller (the agent's name)
	ttl    time.Duration

	mu      sync.Mutex
	dir     string // this agent context's own directory, removed on teardown
	n       int
	total   int64 // bytes stored so far
	handles map[string]spilled
}

// SpillLimit caps the bytes one agent context stores, so that a loop of
// large outputs cannot fill the disk. A variable so tests can lower it.
var SpillLimit int64 = 256 << 20

type spilled struct {
	path  string
	bytes int
	n     int // order of storing
}

// SharedSpillTTL is how long a shared store keeps a spilled output.
var SharedSpillTTL = time.Hour

// NewSharedSpill returns a Spill in st; scope (the agent's name) keeps
// agents sharing one store apart.
func NewSharedSpill(st store.Store, scope string) *Spill {
	return &Spill{shared: st, scope: scope, ttl: SharedSpillTTL, handles: map[string]spilled{}}
}

func (sp *Spill) key(ctx context.Context, handle string) string {
	return store.PrefixSpill + sp.scope + "/" + CallerID(ctx) + "/" + handle
}

// NewSpill returns a store under base (Options.SpillDir; "" for a temp
// dir); its directory is made on the first Store.
func NewSpill(base string) *Spill {
	return &Spill{base: base, handles: map[string]spilled{}}
}

// Dir is the store's own directory, "" until an output was stored.
func (sp *Spill) Dir() string {
	sp.mu.Lock()
	defer sp.mu.Unlock()
	return sp.dir
}

// ToolOutput is what a result says in place of a spilled output, under
// "tool_output": the handle output_read pages through, and its size.
type ToolOutput struct {
	Handle string `json:"handle"`
	Reason string `json:"reason"`
	Bytes  int    `json:"bytes"`
	Lines  int    `json:"lines"`
	Tokens int    `json:"tokens"`
}

// Store writes out to disk (or the shared store) and returns the
// tool_output handle JSON.
func (sp *Spill) Store(ctx context.Context, out string) (string, error) {
	if sp.shared != nil {
		return sp.storeShared(ctx, out)
	}
	sp.mu.Lock()
	defer sp.mu.Unlock()
	if sp.dir == "" {
		if err := sp.open(); err != nil {
			return "", fmt.Errorf("output of %d bytes exceeds response_max_bytes and cannot be stored: %v", len(out), err)
		}
	}
	if sp.total+int64(len(out)) > SpillLimit {
		return "", fmt.Errorf("spill limit exceeded: output of %d bytes exceeds response_max_bytes, and storing it would take this session's stored outputs past %d bytes", len(out), SpillLimit)
	}
	sp.n++
	name := fmt.Sprintf("output-%d.txt", sp.n)
	path := filepath.Join(sp.dir, name)
	if err := os.WriteFile(path, []byte(out), 0o600); err != nil {
		return "", fmt.Errorf("output of %d bytes exceeds response_max_bytes and cannot be stored: %v", len(out), err)
	}
	sp.total += int64(len(out))
	handle := filepath.Base(sp.dir) + "/" + name
	sp.handles[handle] = spilled{path, len(out), sp.n}
	return toolOutput(handle, out), nil
}

func (sp *Spill) storeShared(ctx context.Context, out string) (string, error) {
	sp.mu.Lock()
	over := sp.total+int64(len(out)) > SpillLimit
	if !over {
		sp.total += int64(len(out)) // reserved; given back if the store fails
	}
	sp.mu.Unlock()
	if over {
		return "", fmt.Errorf("spill limit exceeded: output of %d bytes exceeds response_max_bytes, and storing it would take this session's stored outputs past %d bytes", len(out), SpillLimit)
	}
	var r [16]byte
	rand.Read(r[:])
	handle := "out-" + hex.EncodeToString(r[:])
	if err := sp.shared.PutBlob(ctx, sp.key(ctx, handle), []byte(out), sp.ttl); err != nil {
		sp.mu.Lock()
		sp.total -= int64(len(out))
		sp.mu.Unlock()
		return "", fmt.Errorf("output of %d bytes exceeds response_max_bytes and cannot be stored: %w", len(out), err)
	}
	sp.mu.Lock()
	sp.n++
	sp.handles[handle] = spilled{bytes: len(out), n: sp.n}
	sp.mu.Unlock()
	return toolOutput(handle, out), nil
}

// toolOutput is the tool_output JSON that stands for a stored output.
func toolOutput(handle, out string) string {
	lines := strings.Count(out, "\n")
	if !strings.HasSuffix(out, "\n") {
		lines++
	}
	b, _ := json.Marshal(map[string]ToolOutput{"tool_output": {
		Handle: handle, Reason: "size_limit_exceeded", Bytes: len(out), Lines: lines, Tokens: (len(out) + 3) / 4,
	}})
	return string(b)
}

func (sp *Spill) open() error {
	if sp.base != "" {
		if err := os.MkdirAll(sp.base, 0o700); err != nil {
			return err
		}
		dir, err := os.MkdirTemp(sp.base, "session-")
		if err != nil {
			return err
		}
		sp.dir = dir
		return nil
	}
	dir, err := os.MkdirTemp("", "toolgen-session-")
	if err != nil {
		return err
	}
	sp.dir = dir
	return nil
}

// Read returns up to limit bytes of a stored output from offset.
func (sp *Spill) Read(ctx context.Context, handle string, offset, limit int) (chunk string, total int, err error) {
	if sp.shared != nil {
		return sp.readShared(ctx, handle, offset, limit)
	}
	sp.mu.Lock()
	s, ok := sp.handles[handle]
	sp.mu.Unlock()
	if !ok {
		return "", 0, fmt.Errorf("unknown output handle %q", handle)
	}
	if offset < 0 || offset > s.bytes {
		return "", s.bytes, fmt.Errorf("offset %d outside the output (%d bytes)", offset, s.bytes)
	}
	f, err := os.Open(s.path)
	if err != nil {
		return "", s.bytes, err
	}
	defer f.Close()
	// Read a few bytes past the limit to see where the next rune starts.
	want := min(limit, s.bytes-offset)
	buf := make([]byte, min(want+utf8.UTFMax, s.bytes-offset))
	n, err := f.ReadAt(buf, int64(offset))
	if n < len(buf) && err != nil {
		return "", s.bytes, err
	}
	return string(buf[:runeCut(buf[:n], want)]), s.bytes, nil
}

// readShared reads a page from the shared store: any replica's output of
// the same caller, not only this session's.
func (sp *Spill) readShared(ctx context.Context, handle string, offset, limit int) (string, int, error) {
	if offset < 0 {
		return "", 0, fmt.Errorf("offset %d outside the output", offset)
	}
	buf, size, err := sp.shared.ReadBlob(ctx, sp.key(ctx, handle), offset, limit+utf8.UTFMax)
	if errors.Is(err, store.ErrNotFound) {
		return "", 0, fmt.Errorf("unknown output handle %q (stored outputs are kept for %s)", handle, sp.ttl)
	}
	if err != nil {
		return "", 0, fmt.Errorf("output %q: %w", handle, err)
	}
	if offset > size {
		return "", size, fmt.Errorf("offset %d outside the output (%d bytes)", offset, size)
	}
	want := min(limit, size-offset)
	return string(buf[:runeCut(buf, want)]), size, nil
}

// runeCut returns where a page of at most limit bytes of b ends so that it
// does not split a UTF-8 sequence: a split rune would turn into U+FFFD in
// the JSON result and the pages would no longer reassemble. A page always
// holds at least one whole rune, even one longer than limit.
func runeCut(b []byte, limit int) int {
	if limit >= len(b) {
		return len(b)
	}
	end := limit
	for end > 0 && limit-end < utf8.UTFMax && !utf8.RuneStart(b[end]) {
		end--
	}
	if end > 0 && limit-end < utf8.UTFMax {
		return end
	}
	// Not UTF-8 here, or a rune longer than the page: go forward instead.
	end = limit
	for end < len(b) && end-limit < utf8.UTFMax && !utf8.RuneStart(b[end]) {
		end++
	}
	return end
}

// Stored is one output in the store: its handle and size.
type Stored struct {
	Handle string
	Bytes  int
}

// List returns the stored outputs, oldest first.
func (sp *Spill) List() []Stored {
	sp.mu.Lock()
	defer sp.mu.Unlock()
	out := make([]Stored, 0, len(sp.handles))
	for h, s := range sp.handles {
		out = append(out, Stored{h, s.bytes})
	}
	slices.SortFunc(out, func(a, b Stored) int { return cmp.Compare(sp.handles[a.Handle].n, sp.handles[b.Handle].n) })
	return out
}

// Close removes the directory this store created (a session-* directory
// under Options.SpillDir, or a temp dir); SpillDir itself stays. A shared
// store's outputs stay until they expire: another replica may read them.
func (sp *Spill) Close() {
	sp.mu.Lock()
	defer sp.mu.Unlock()
	if sp.dir != "" {
		os.RemoveAll(sp.dir)
	}
	sp.handles = map[string]spilled{}
}

// Truncate cuts an output over max bytes for an agent that does not offer
// output_read (a spill handle would lead nowhere): the first max bytes, cut
// at a character boundary, and a note saying how much was left out and how
// the spec offers the rest.
func Truncate(out string, max int) string {
	if len(out) <= max {
		return out
	}
	cut := max
	for cut > 0 && !utf8.RuneStart(out[cut]) {
		cut--
	}
	return fmt.Sprintf("%s\n… [output truncated: %d of %d bytes shown; an agent with runtime.output_read in tools.use can page through the whole output]", out[:cut], cut, len(out))
}
