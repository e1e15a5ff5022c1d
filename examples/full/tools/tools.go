// Package tools holds the Go function tools of the full example spec.
package tools

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"time"
	"unicode"
)

// SummarizeArgs are the arguments of the summarize tool.
type SummarizeArgs struct {
	// Text is the document to summarize.
	Text string `json:"text"`
	// MaxSentences caps the summary length; 0 means 3.
	MaxSentences int `json:"max_sentences,omitempty" jsonschema:"minimum=0,maximum=20"`
}

// SummarizeResult is what summarize returns.
type SummarizeResult struct {
	Summary   string `json:"summary"`
	Sentences int    `json:"sentences"`
}

// Summarize keeps the first sentences of a text: a stand-in for a real
// summarizer that needs no model.
func Summarize(ctx context.Context, args SummarizeArgs) (SummarizeResult, error) {
	if strings.TrimSpace(args.Text) == "" {
		return SummarizeResult{}, errors.New("text is empty")
	}
	n := args.MaxSentences
	if n == 0 {
		n = 3
	}
	var out []string
	rest := args.Text
	for len(out) < n && rest != "" {
		i := strings.IndexAny(rest, ".!?")
		if i < 0 {
			out = append(out, strings.TrimSpace(rest))
			break
		}
		out = append(out, strings.TrimSpace(rest[:i+1]))
		rest = rest[i+1:]
	}
	return SummarizeResult{Summary: strings.Join(out, " "), Sentences: len(out)}, nil
}

// CountArgs are the arguments of the word_count tool.
type CountArgs struct {
	Text string `json:"text" jsonschema:"description=The text to count words in"`
	// Unique counts distinct words (case-insensitive) instead of all words.
	Unique bool `json:"unique,omitempty"`
}

// WordCount counts the words of a text.
func WordCount(ctx context.Context, args CountArgs) (int, error) {
	words := strings.FieldsFunc(args.Text, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
	if !args.Unique {
		return len(words), nil
	}
	seen := map[string]bool{}
	for _, w := range words {
		seen[strings.ToLower(w)] = true
	}
	return len(seen), nil
}

// SleepArgs are the arguments of the sleep tool.
type SleepArgs struct {
	// Milliseconds to wait.
	Milliseconds int `json:"milliseconds" jsonschema:"minimum=0"`
}

// Sleep waits, or gives up when its context ends: a stand-in for a slow
// backend, so that the tool's timeout in the spec has something to cut.
func Sleep(ctx context.Context, args SleepArgs) (string, error) {
	t := time.NewTimer(time.Duration(args.Milliseconds) * time.Millisecond)
	defer t.Stop()
	select {
	case <-t.C:
		return fmt.Sprintf("slept %d ms", args.Milliseconds), nil
	case <-ctx.Done():
		return "", ctx.Err()
	}
}

// LinesArgs are the arguments of the numbered_lines tool.
type LinesArgs struct {
	// Text is repeated on every line after its number.
	Text string `json:"text"`
	// Count is the number of lines.
	Count int `json:"count" jsonschema:"minimum=1,maximum=1000000"`
}

// NumberedLines renders Count numbered lines of Text: a tool whose output
// easily exceeds response_max_bytes, which the runtime spills to disk.
func NumberedLines(ctx context.Context, args LinesArgs) (string, error) {
	if args.Count < 1 || args.Count > 1000000 {
		return "", fmt.Errorf("count must be between 1 and 1000000, not %d", args.Count)
	}
	var b strings.Builder
	for i := 1; i <= args.Count; i++ {
		fmt.Fprintf(&b, "%d %s\n", i, args.Text)
	}
	return b.String(), nil
}

// FingerprintArgs are the arguments of the fingerprint tool.
type FingerprintArgs struct {
	Text string `json:"text"`
	// HoldMilliseconds keeps the call busy, standing in for an expensive
	// backend whose concurrency the spec's queue bounds.
	HoldMilliseconds int `json:"hold_ms,omitempty" jsonschema:"minimum=0,maximum=10000"`
}

// FingerprintResult is what fingerprint returns.
type FingerprintResult struct {
	SHA256 string `json:"sha256"`
	// InFlight is how many fingerprint calls were running, this one
	// included, when it started: what the queue bounds.
	InFlight int64 `json:"in_flight"`
}

var fingerprintsRunning atomic.Int64

// Fingerprint hashes a text with SHA-256 after holding for HoldMilliseconds.
func Fingerprint(ctx context.Context, args FingerprintArgs) (FingerprintResult, error) {
	n := fingerprintsRunning.Add(1)
	defer fingerprintsRunning.Add(-1)
	if _, err := Sleep(ctx, SleepArgs{Milliseconds: min(max(args.HoldMilliseconds, 0), 10000)}); err != nil {
		return FingerprintResult{}, err
	}
	sum := sha256.Sum256([]byte(args.Text))
	return FingerprintResult{SHA256: hex.EncodeToString(sum[:]), InFlight: n}, nil
}

// FingerprintsRunning reports how many fingerprint calls are running in
// this process, for a host's status page (and the example's tests).
func FingerprintsRunning() int64 { return fingerprintsRunning.Load() }
