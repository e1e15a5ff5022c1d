package search

import (
	"unicode"
	"unicode/utf8"
)

// char classes the tokenizer splits on.
const (
	clsSep = iota
	clsLower
	clsUpper
	clsDigit
)

func classOf(r rune) int {
	switch {
	case 'a' <= r && r <= 'z':
		return clsLower
	case 'A' <= r && r <= 'Z':
		return clsUpper
	case '0' <= r && r <= '9':
		return clsDigit
	case r < utf8.RuneSelf:
		return clsSep
	case unicode.IsUpper(r):
		return clsUpper
	case unicode.IsLetter(r) || unicode.Is(unicode.Mn, r):
		return clsLower
	case unicode.IsDigit(r):
		return clsDigit
	}
	return clsSep
}

// Kinds of terms the tokenizer produces.
const (
	kindWord = iota // a word as written (lowercased)
	kindStem        // "~" + the stem of a word
)

// tokenizer splits text into lowercase, non-stop-word terms. It reuses its
// buffers, so a warm tokenizer allocates nothing; a term passed to the
// callback is only valid during the call.
type tokenizer struct {
	buf []byte
}

// each calls fn for every term of s, in order. Words split on anything that
// is not a letter or digit (so on _ - . / and "__"), on camelCase humps
// ("getHTTPServer" → get, http, server) and on letter/digit boundaries
// ("ipv4" → ipv, 4).
func (tk *tokenizer) each(s string, fn func(term []byte, kind int)) {
	start := -1 // start of the current word, -1 outside a word
	prev := clsSep
	for i := 0; i < len(s); {
		r, size := rune(s[i]), 1
		if r >= utf8.RuneSelf {
			r, size = utf8.DecodeRuneInString(s[i:])
		}
		c := classOf(r)
		if start >= 0 && c != prev {
			split := false
			switch {
			case c == clsSep:
				split = true
			case prev == clsDigit || c == clsDigit:
				split = true
			case prev == clsLower && c == clsUpper:
				split = true
			case prev == clsUpper && c == clsLower:
				// "HTTPServer": the last upper starts the next word.
				if j := lastRuneStart(s, start, i); j > start {
					tk.emit(s[start:j], fn)
					start = j
				}
			}
			if split {
				tk.emit(s[start:i], fn)
				start = -1
			}
		}
		if start < 0 && c != clsSep {
			start = i
		}
		prev = c
		i += size
	}
	if start >= 0 {
		tk.emit(s[start:], fn)
	}
}

// lastRuneStart returns the start of the rune that ends at end, or start if
// that rune is the first of the word.
func lastRuneStart(s string, start, end int) int {
	_, size := utf8.DecodeLastRuneInString(s[start:end])
	return end - size
}

// emit lowercases one word, drops it if it is a stop word, and passes on
// the word and its stem.
func (tk *tokenizer) emit(word string, fn func(term []byte, kind int)) {
	b := tk.buf[:0]
	for i := 0; i < len(word); {
		c := word[i]
		if c < utf8.RuneSelf {
			if 'A' <= c && c <= 'Z' {
				c += 'a' - 'A'
			}
			b = append(b, c)
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(word[i:])
		b = utf8.AppendRune(b, unicode.ToLower(r))
		i += size
	}
	tk.buf = b
	if isStopWord(b) {
		return
	}
	n := len(b)
	fn(b, kindWord)
	if stemLevel > 0 && stemmable(b[:n]) {
		// The stem is a separate term marked by a leading '~' (which no
		// word contains), so an exact form scores above a match of the
		// stem alone: plurals carry meaning in tool text ("list secrets"
		// vs "get secret").
		b = append(b, '~')
		b = append(b, b[:n]...)
		st := stem(b[n+1:])
		fn(b[n:n+1+len(st)], kindStem)
	}
	tk.buf = b
}

// stemLevel selects the stemmer: 0 none, 1 plurals, 2 plurals and verb
// endings. It is a variable only so that the retrieval evaluation can
// compare the levels; the index format assumes the default.
var stemLevel = 2

// stem strips English inflections so that "lists", "listing" and "listed"
// meet "list". It is deliberately light (plural and verb endings only): a
// heavier stemmer conflates unrelated tool words. Words of four letters or
// fewer are left alone.
func stem(b []byte) []byte {
	n := len(b)
	switch {
	case hasSuffix(b, "ies") && n > 5:
		b = append(b[:n-3], 'y')
	case hasSuffix(b, "sses"), hasSuffix(b, "shes"), hasSuffix(b, "ches"), hasSuffix(b, "xes"):
		b = b[:n-2]
	case hasSuffix(b, "s") && !hasSuffix(b, "ss") && !hasSuffix(b, "us") && !hasSuffix(b, "is"):
		b = b[:n-1]
	case stemLevel < 2:
	case hasSuffix(b, "ing") && n > 6 && hasVowel(b[:n-3]):
		b = undouble(b[:n-3])
	case hasSuffix(b, "ed") && n > 5 && hasVowel(b[:n-2]) && !hasSuffix(b, "eed"):
		b = undouble(b[:n-2])
	}
	// A final e goes too, so "update", "updates", "updated" and
	// "updating" share "updat".
	if stemLevel >= 2 && len(b) > 4 && b[len(b)-1] == 'e' {
		b = b[:len(b)-1]
	}
	return b
}

// stemmable reports whether stem may change b: ASCII words of four or more
// letters. Other words get no stem term at all, in documents and queries
// alike.
func stemmable(b []byte) bool {
	return len(b) > 3 && isASCIILetters(b)
}

func undouble(b []byte) []byte {
	n := len(b)
	if n >= 3 && b[n-1] == b[n-2] && !isVowel(b[n-1]) && b[n-1] != 'l' && b[n-1] != 's' && b[n-1] != 'z' && b[n-1] != 'd' {
		return b[:n-1]
	}
	return b
}

func hasSuffix(b []byte, suf string) bool {
	return len(b) >= len(suf) && string(b[len(b)-len(suf):]) == suf
}

func isVowel(c byte) bool {
	switch c {
	case 'a', 'e', 'i', 'o', 'u', 'y':
		return true
	}
	return false
}

func hasVowel(b []byte) bool {
	for _, c := range b {
		if isVowel(c) {
			return true
		}
	}
	return false
}

func isASCIILetters(b []byte) bool {
	for _, c := range b {
		if c < 'a' || c > 'z' {
			return false
		}
	}
	return true
}

// stopWords are English function words that carry no tool meaning. Verbs
// such as "get", "list" and "show" are kept: they tell tools apart.
var stopWords = [...]string{
	"a", "about", "after", "all", "also", "am", "an", "and", "any", "are", "as", "at",
	"be", "been", "before", "being", "both", "but", "by",
	"can", "could", "did", "do", "does", "doing", "each", "either", "else", "etc",
	"for", "from", "had", "has", "have", "having", "he", "her", "here", "hers", "him", "his",
	"how", "i", "if", "in", "into", "is", "it", "its", "itself", "just",
	"let", "me", "might", "mine", "more", "most", "much", "must", "my", "myself",
	"need", "needs", "no", "nor", "not", "of", "off", "on", "once", "only", "or", "other",
	"our", "ours", "please", "shall", "she", "should", "so", "some", "such",
	"than", "that", "the", "their", "theirs", "them", "then", "there", "these", "they",
	"this", "those", "through", "to", "too", "us", "very", "was", "we", "were",
	"what", "when", "where", "which", "while", "who", "whom", "whose", "why", "will",
	"with", "would", "you", "your", "yours",
}

func isStopWord(b []byte) bool {
	// Binary search over the sorted list; the conversion in the comparison
	// does not allocate.
	lo, hi := 0, len(stopWords)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if stopWords[m] < string(b) {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return lo < len(stopWords) && stopWords[lo] == string(b)
}

// Terms returns the search terms of s, as the index sees them. It is for
// tests, tooling and explanations; the index itself tokenizes without
// allocating per term.
func Terms(s string) []string {
	var tk tokenizer
	var out []string
	tk.each(s, func(t []byte, _ int) { out = append(out, string(t)) })
	return out
}
