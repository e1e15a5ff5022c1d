package enrich

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"strings"
	"unicode/utf8"
)

// prompt.txt is the whole instruction the model gets; its first line is
// its version, written into toolgen.enrich.json as prompt_version. Change
// the version with the text (TestPromptVersion pins one to the other).
//
//go:embed prompt.txt
var promptFile string

// PromptVersion names the prompt in the files it writes.
var PromptVersion, promptText = splitPrompt(promptFile)

// count says n requests in words.
func count(n int) string {
	switch n {
	case 0:
		return "no requests (an empty list)"
	case 1:
		return "1 request"
	}
	return fmt.Sprintf("%d requests", n)
}

func splitPrompt(file string) (version, text string) {
	head, rest, _ := strings.Cut(file, "\n")
	version, ok := strings.CutPrefix(head, "prompt_version: ")
	if !ok || version == "" {
		panic("enrich: prompt.txt must start with \"prompt_version: VERSION\"")
	}
	return version, strings.TrimLeft(rest, "\n")
}

// Styles is how many requests of each style a tool gets.
type Styles struct {
	OwnWords   int // in the tool's own terms
	Everyday   int // in everyday words, avoiding the tool's terms
	Situations int // a task or problem the tool solves
}

// Total is the number of requests per tool.
func (s Styles) Total() int { return s.OwnWords + s.Everyday + s.Situations }

// Spread divides n requests over the three styles as evenly as possible;
// a remainder goes to everyday phrasings first, then situations, the two
// styles that find a tool by words its description lacks.
func Spread(n int) Styles {
	s := Styles{OwnWords: n / 3, Everyday: n / 3, Situations: n / 3}
	if n%3 >= 1 {
		s.Everyday++
	}
	if n%3 == 2 {
		s.Situations++
	}
	return s
}

// systemPrompt is prompt.txt for these counts. Its three placeholders are
// filled by plain replacement: text/template would make the linker keep
// every exported method in every agent binary (it calls methods by name),
// which costs megabytes.
func systemPrompt(s Styles) string {
	return strings.NewReplacer(
		"{{count .OwnWords}}", count(s.OwnWords),
		"{{count .Everyday}}", count(s.Everyday),
		"{{count .Situations}}", count(s.Situations),
	).Replace(promptText)
}

// answerSchema is the structured output asked for: per tool its name and
// one list per style. Every property is required and none other allowed,
// as OpenAI's strict mode needs; counts and lengths are checked on our
// side, since not every compatible server enforces them.
const answerSchema = `{
  "type": "object",
  "properties": {
    "tools": {
      "type": "array",
      "items": {
        "type": "object",
        "properties": {
          "name": {"type": "string"},
          "own_words": {"type": "array", "items": {"type": "string"}},
          "everyday": {"type": "array", "items": {"type": "string"}},
          "situations": {"type": "array", "items": {"type": "string"}}
        },
        "required": ["name", "own_words", "everyday", "situations"],
        "additionalProperties": false
      }
    }
  },
  "required": ["tools"],
  "additionalProperties": false
}`

// AnswerName names the structured answer for the model.
const AnswerName = "search_requests"

// Caps on what one tool sends, so that a server reporting a huge
// description at run time cannot run up the bill. The whole description
// still counts for the hash.
const (
	maxDescriptionBytes = 6000
	maxParams           = 64
)

// toolMessage is one tool as the user message shows it.
type toolMessage struct {
	Name        string   `json:"name"`
	Description string   `json:"description"`
	Parameters  []string `json:"parameters"`
}

// userMessage is the JSON the model reads: the tools, and on a second
// attempt why the first answer was refused.
func userMessage(tools []Tool, rejected string) string {
	msg := struct {
		Tools    []toolMessage `json:"tools"`
		Rejected string        `json:"rejected,omitempty"`
	}{Tools: make([]toolMessage, len(tools)), Rejected: rejected}
	for i, t := range tools {
		params := t.Params
		if len(params) > maxParams {
			params = params[:maxParams]
		}
		if params == nil {
			params = []string{}
		}
		msg.Tools[i] = toolMessage{Name: t.Name, Description: truncate(t.Description, maxDescriptionBytes), Parameters: params}
	}
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false) // descriptions keep their <, > and & readable
	if err := enc.Encode(msg); err != nil {
		panic(err) // strings only
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// truncate cuts s to at most n bytes on a rune boundary, marking the cut.
func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := n - len("…")
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}
