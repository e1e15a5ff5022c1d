package enrich

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/toolgen-dev/toolgen/internal/model"
)

// Enricher enriches tools found at run time (a server without a lock
// entry), for an agent binary whose spec opts in. Answers are cached on
// disk per user, keyed by search.EnrichmentHash, so each tool is asked at
// most once per machine, whatever binary asks. A tool whose answer was
// unusable is remembered too, until the prompt version changes; a tool
// whose request failed (no answer) is asked again next time.
//
// Without a Model, EnrichMissing answers from the cache and returns an
// error for the tools it would ask about. An Enricher is
// safe for concurrent use: a tool that another call is asking about is
// left to that call, which returns its queries.
type Enricher struct {
	Model     model.Model
	ModelName string // written into cache entries
	// Queries, Concurrency and Batch are as in Options; 0 means the default.
	Queries     int
	Concurrency int
	Batch       int
	// Dir is the cache directory; empty means CacheDir().
	Dir string
	// Shared, when set, is a cache the replicas of an agent share (their
	// runtime/store): an answer one replica got serves the others, each
	// keeping it in Dir too. Its failures only cost a question.
	Shared SharedCache

	mu       sync.Mutex
	inFlight map[string]bool // hashes being asked about
}

// CacheDir is where an Enricher keeps its answers by default:
// $XDG_CACHE_HOME/toolgen/enrich (~/.cache/toolgen/enrich) on Linux, the
// platform's user cache directory elsewhere.
func CacheDir() (string, error) {
	d, err := os.UserCacheDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(d, "toolgen", "enrich"), nil
}

// Found is what EnrichMissing found.
type Found struct {
	// Queries are the queries of every given tool that has some, from the
	// cache or asked now, by tool name: set them as search.Doc.Queries
	// (search.EnrichDocs) and add the docs with search.Index.With.
	Queries map[string][]string
	Cached  int // tools answered from the cache
	// Unusable counts tools whose cached answers were unusable with this
	// prompt version; they are not asked again.
	Unusable int
	Asked    int // tools sent to the model
	// Failed are the tools asked now without usable queries.
	Failed   []Failure
	Requests int
	Usage    model.Usage
}

// EnrichMissing returns queries for tools: from the cache, or by asking
// the model about the tools the cache lacks, writing each answer to the
// cache as soon as it is checked. Call it in the background; cancelling
// ctx stops the requests in flight, and what was answered stays cached.
// The error is for what fails every tool (the cache directory, the key);
// Found holds whatever was found before it.
func (e *Enricher) EnrichMissing(ctx context.Context, tools []Tool) (*Found, error) {
	found := &Found{Queries: map[string][]string{}}
	n := e.Queries
	if n == 0 {
		n = DefaultQueries
	}
	if n < 0 || n > MaxQueries {
		return found, fmt.Errorf("enrich: queries must be between 1 and %d, got %d", MaxQueries, n)
	}
	dir := e.Dir
	if dir == "" {
		d, err := CacheDir()
		if err != nil {
			return found, fmt.Errorf("enrich: no cache directory: %w", err)
		}
		dir = d
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return found, fmt.Errorf("enrich: cache: %w", err)
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		return found, fmt.Errorf("enrich: cache: %w", err)
	}
	defer root.Close()

	// Claim before reading the cache: a call that finished asking has
	// written its entries before it let go of them.
	var claimed, ask []Tool
	defer func() { e.release(claimed) }()
	for _, t := range tools {
		if !e.claim(t) {
			continue // another call is asking; it returns the queries
		}
		claimed = append(claimed, t)
		c, ok := readEntry(root, t)
		if !ok && e.Shared != nil {
			if c, ok = e.readShared(ctx, t); ok {
				writeEntry(root, c) // this replica's disk, for the next start
			}
		}
		switch {
		case ok && c.Queries != nil:
			found.Queries[t.Name] = c.Queries
			found.Cached++
		case ok && c.PromptVersion == PromptVersion:
			found.Unusable++ // twice with this prompt: not worth asking again
		default:
			ask = append(ask, t)
		}
	}
	if len(ask) == 0 {
		return found, nil
	}
	if e.Model == nil {
		return found, errors.New("enrich: no model to ask")
	}
	found.Asked = len(ask)
	var writeErr error
	a := newAsker(e.Model, n, e.Concurrency, e.Batch, func(o outcome) {
		c := entry{Version: entryVersion, PromptVersion: PromptVersion, Model: e.ModelName, Name: o.Tool.Name, Hash: o.Tool.Hash()}
		switch {
		case o.Queries != nil:
			found.Queries[o.Tool.Name] = o.Queries
			c.Queries = o.Queries
		case o.Refused:
			found.Failed = append(found.Failed, Failure{Tool: o.Tool.Name, Reason: o.Failure})
			c.Failed = o.Failure
		default:
			found.Failed = append(found.Failed, Failure{Tool: o.Tool.Name, Reason: o.Failure})
			return // no answer: ask again another time
		}
		if err := writeEntry(root, c); err != nil && writeErr == nil {
			writeErr = fmt.Errorf("enrich: cache: %w", err)
		}
		e.writeShared(ctx, c)
	})
	err = a.askAll(ctx, ask)
	found.Requests, found.Usage = a.requests, a.usage
	return found, errors.Join(err, writeErr)
}

// claim marks t as being asked about, unless another call already is.
func (e *Enricher) claim(t Tool) bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.inFlight == nil {
		e.inFlight = map[string]bool{}
	}
	h := t.Hash()
	if e.inFlight[h] {
		return false
	}
	e.inFlight[h] = true
	return true
}

func (e *Enricher) release(tools []Tool) {
	e.mu.Lock()
	defer e.mu.Unlock()
	for _, t := range tools {
		delete(e.inFlight, t.Hash())
	}
}

// entry is one cached tool: <hex of the hash>.json.
type entry struct {
	Version       int      `json:"version"`
	PromptVersion string   `json:"prompt_version"`
	Model         string   `json:"model,omitempty"`
	Name          string   `json:"name"`
	Hash          string   `json:"hash"`
	Queries       []string `json:"queries,omitempty"`
	// Failed says why the model's answers were unusable.
	Failed string `json:"failed,omitempty"`
}

const entryVersion = 1

// maxEntryBytes bounds what is read from a cache file.
const maxEntryBytes = 256 << 10

func entryFile(hash string) string {
	return strings.TrimPrefix(hash, "sha256:") + ".json"
}

// readEntry returns the cached entry of t. Anything unreadable, of
// another version or not about t counts as absent (and is overwritten).
func readEntry(root *os.Root, t Tool) (entry, bool) {
	f, err := root.Open(entryFile(t.Hash()))
	if err != nil {
		return entry{}, false
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, maxEntryBytes+1))
	if err != nil {
		return entry{}, false
	}
	return parseEntry(b, t)
}

// parseEntry checks a cached entry of t, from a file or the shared cache.
func parseEntry(b []byte, t Tool) (entry, bool) {
	if len(b) > maxEntryBytes {
		return entry{}, false
	}
	var c entry
	if json.Unmarshal(b, &c) != nil || c.Version != entryVersion || c.Hash != t.Hash() || c.Name != t.Name {
		return entry{}, false
	}
	if c.Queries == nil {
		return c, c.Failed != ""
	}
	if len(c.Queries) > MaxQueries {
		return entry{}, false
	}
	for _, q := range c.Queries {
		if strings.TrimSpace(q) == "" || !utf8.ValidString(q) || utf8.RuneCountInString(q) > maxQueryRunes {
			return entry{}, false
		}
	}
	return c, true
}

// writeEntry replaces an entry atomically: a private temporary file in the
// same directory, renamed over the old one, so a reader sees the old entry
// or the new one, never part of one.
func writeEntry(root *os.Root, c entry) error {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(c); err != nil {
		return err
	}
	var rnd [8]byte
	rand.Read(rnd[:])
	tmp := ".tmp-" + hex.EncodeToString(rnd[:])
	f, err := root.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return err
	}
	_, err = f.Write(b.Bytes())
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = root.Rename(tmp, entryFile(c.Hash))
	}
	if err != nil {
		root.Remove(tmp)
	}
	return err
}
