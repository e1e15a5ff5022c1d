package enrich

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// maxQueryRunes bounds one request: the prompt asks for at most 150
// characters; longer is a paragraph, not something anyone types. It stays
// well inside search.ParseEnrichment's 500 bytes for any script.
const maxQueryRunes = 160

// MaxQueries bounds Options.Queries: more requests per tool cost more
// than they add to search (and the file keeps at most 64).
const MaxQueries = 30

// answer is the structured output of answerSchema.
type answer struct {
	Tools []answerTool `json:"tools"`
}

type answerTool struct {
	Name       string   `json:"name"`
	OwnWords   []string `json:"own_words"`
	Everyday   []string `json:"everyday"`
	Situations []string `json:"situations"`
}

// readAnswer checks the model's answer for tools: the queries of each tool
// whose answer is usable, and for every other tool why not.
func readAnswer(raw json.RawMessage, tools []Tool, want Styles) (got map[string][]string, refused map[string]string) {
	got, refused = map[string][]string{}, map[string]string{}
	var a answer
	dec := json.NewDecoder(bytes.NewReader(raw))
	if err := dec.Decode(&a); err != nil || a.Tools == nil {
		why := `the answer is not {"tools": [...]}`
		if err != nil {
			why += ": " + err.Error()
		}
		for _, t := range tools {
			refused[t.Name] = why
		}
		return got, refused
	}
	byName := make(map[string]*answerTool, len(a.Tools))
	for i := range a.Tools {
		if _, dup := byName[a.Tools[i].Name]; !dup {
			byName[a.Tools[i].Name] = &a.Tools[i]
		}
	}
	for _, t := range tools {
		at := byName[t.Name]
		if at == nil {
			refused[t.Name] = "the answer has no entry for this tool"
			continue
		}
		if qs, why := checkTool(t.Name, at, want); why != "" {
			refused[t.Name] = why
		} else {
			got[t.Name] = qs
		}
	}
	return got, refused
}

// checkTool returns a tool's queries, own words first, or why they cannot
// be used. A style is short when it has fewer requests than asked that are
// well formed (not empty, not too long); that makes the answer unusable.
// Requests that only repeat the tool's name or another request add nothing
// to search and are dropped, without asking again, unless nothing else is
// left of a style. Extra requests fill in for dropped ones, then are
// ignored.
func checkTool(name string, at *answerTool, want Styles) ([]string, string) {
	nameWords := words(name)
	seen := map[string]bool{}
	var out []string
	var problems []string
	for _, style := range []struct {
		key  string
		got  []string
		want int
	}{{"own_words", at.OwnWords, want.OwnWords}, {"everyday", at.Everyday, want.Everyday}, {"situations", at.Situations, want.Situations}} {
		formed, kept := 0, 0
		var broken, dropped []string
		for i, q := range style.got {
			if kept == style.want {
				break
			}
			q, bad := cleanQuery(q)
			if bad != "" {
				broken = append(broken, fmt.Sprintf("request %d %s", i+1, bad))
				continue
			}
			formed++
			switch {
			case onlyName(words(q), nameWords):
				dropped = append(dropped, fmt.Sprintf("request %d only repeats the tool's name (%q)", i+1, q))
				continue
			case seen[strings.ToLower(q)]:
				dropped = append(dropped, fmt.Sprintf("request %d repeats another request", i+1))
				continue
			}
			seen[strings.ToLower(q)] = true
			out = append(out, q)
			kept++
		}
		switch {
		case formed < style.want:
			p := fmt.Sprintf("%q has %d usable requests, %d are needed", style.key, formed, style.want)
			if len(broken) > 0 {
				p += " (" + strings.Join(broken, ", ") + ")"
			}
			problems = append(problems, p)
		case style.want > 0 && kept == 0:
			problems = append(problems, fmt.Sprintf("%q has no request of its own (%s)", style.key, strings.Join(dropped, ", ")))
		}
	}
	if len(problems) > 0 {
		return nil, strings.Join(problems, "; ")
	}
	return out, ""
}

// cleanQuery folds a request's whitespace and strips quotes around it; bad
// says why it is not a well-formed request.
func cleanQuery(q string) (clean, bad string) {
	if !utf8.ValidString(q) {
		return "", "is not valid UTF-8"
	}
	q = strings.Join(strings.Fields(q), " ")
	for _, pair := range [][2]string{{`"`, `"`}, {"'", "'"}, {"“", "”"}, {"«", "»"}} {
		if len(q) >= len(pair[0])+len(pair[1]) && strings.HasPrefix(q, pair[0]) && strings.HasSuffix(q, pair[1]) {
			q = strings.TrimSpace(q[len(pair[0]) : len(q)-len(pair[1])])
			break
		}
	}
	switch {
	case q == "":
		return "", "is empty"
	case strings.IndexFunc(q, unicode.IsControl) >= 0:
		return "", "holds control characters"
	case utf8.RuneCountInString(q) > maxQueryRunes:
		return "", fmt.Sprintf("is longer than %d characters", maxQueryRunes)
	}
	if len(words(q)) == 0 {
		return "", "has no words"
	}
	return q, ""
}

// onlyName reports whether a request's words are the tool's name or its
// end (create_entities of memory__create_entities): nothing a search could
// not already match.
func onlyName(q, name []string) bool {
	for i := range name {
		if slices.Equal(q, name[i:]) {
			return true
		}
	}
	return false
}

// words splits a name or request into lower-case words: on anything but
// letters and digits, and where camelCase turns upper.
func words(s string) []string {
	var out []string
	var cur []rune
	flush := func() {
		if len(cur) > 0 {
			out = append(out, strings.ToLower(string(cur)))
			cur = cur[:0]
		}
	}
	prev := rune(0)
	for _, r := range s {
		switch {
		case !unicode.IsLetter(r) && !unicode.IsDigit(r):
			flush()
		case unicode.IsUpper(r) && unicode.IsLower(prev):
			flush()
			cur = append(cur, r)
		default:
			cur = append(cur, r)
		}
		prev = r
	}
	flush()
	return out
}
