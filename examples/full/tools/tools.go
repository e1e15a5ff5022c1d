// Package tools holds the Go function tools of the full example spec.
package tools

import (
	"context"
	"errors"
	"strings"
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
