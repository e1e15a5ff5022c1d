// Package tools holds the Go function tool of the demo agent.
package tools

import (
	"context"
	"strings"
	"unicode"
)

// CountArgs are the arguments of the word_count tool.
type CountArgs struct {
	// Text is the text to count words in.
	Text string `json:"text"`
	// Unique counts distinct words, ignoring case, instead of all words.
	Unique bool `json:"unique,omitempty"`
}

// CountResult is the word count.
type CountResult struct {
	Words int `json:"words"`
}

// WordCount counts the words (runs of letters and digits) of a text.
func WordCount(ctx context.Context, args CountArgs) (CountResult, error) {
	words := strings.FieldsFunc(args.Text, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
	if !args.Unique {
		return CountResult{Words: len(words)}, nil
	}
	seen := make(map[string]bool, len(words))
	for _, w := range words {
		seen[strings.ToLower(w)] = true
	}
	return CountResult{Words: len(seen)}, nil
}
