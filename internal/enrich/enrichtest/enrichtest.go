// Package enrichtest answers enrichment requests for tests the way a model
// that follows internal/enrich's prompt would, through the scripted model
// server (modeltest): Scribe.Respond writes each tool's requests from its
// name and description with a small vocabulary of everyday words, so a
// paraphrase such as "remember a person" finds memory__create_entities only
// through the enrichment.
package enrichtest

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/toolgen-dev/toolgen/internal/enrich"
	"github.com/toolgen-dev/toolgen/internal/model/modeltest"
)

// Tool is one tool as an enrichment request shows it.
type Tool struct {
	Name        string   `json:"name"`
	Description string   `json:"description"`
	Parameters  []string `json:"parameters"`
}

// sent decodes the user message of a request, refusing any field the
// product does not mean to send.
func Sent(t testing.TB, r *modeltest.Request) (tools []Tool, rejected string) {
	t.Helper()
	if len(r.Messages) != 1 || r.Messages[0].Role != "user" {
		t.Fatalf("request messages = %+v, want one user message", r.Messages)
	}
	var msg struct {
		Tools    []Tool `json:"tools"`
		Rejected string `json:"rejected"`
	}
	dec := json.NewDecoder(strings.NewReader(r.Messages[0].Text))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&msg); err != nil {
		t.Fatalf("user message %q: %v", r.Messages[0].Text, err)
	}
	return msg.Tools, msg.Rejected
}

// Scribe answers like a model that follows the prompt: it reads how many
// requests of each style to write from the system prompt, the tools from
// the user message, and writes each tool's requests from its name and
// description, with a small vocabulary of everyday words. Break, when
// set, may replace one tool's answer (attempt counts from 1).
type Scribe struct {
	t     testing.TB
	Usage modeltest.Usage
	Break func(tool Tool, attempt int, rejected string) (answer map[string]any, raw string)

	mu    sync.Mutex
	asked map[string]int
}

// NewScribe returns a Scribe that reports what it cannot read through t.
func NewScribe(t testing.TB) *Scribe {
	return &Scribe{t: t, Usage: modeltest.Usage{Input: 300, Output: 90}, asked: map[string]int{}}
}

// Times returns how often each tool was asked about.
func (s *Scribe) Times() map[string]int {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := map[string]int{}
	for k, v := range s.asked {
		out[k] = v
	}
	return out
}

var countRE = regexp.MustCompile(`"(own_words|everyday|situations)": (\d+ requests?|no requests)`)

// Respond is a modeltest.Server responder: one structured answer for
// every tool of the request.
func (s *Scribe) Respond(r *modeltest.Request) modeltest.Turn {
	counts := map[string]int{}
	for _, m := range countRE.FindAllStringSubmatch(r.System, -1) {
		n, _ := strconv.Atoi(strings.Fields(m[2])[0])
		counts[m[1]] = n
	}
	if len(counts) != 3 {
		s.t.Errorf("the system prompt does not give three counts:\n%s", r.System)
	}
	if r.JSONName != enrich.AnswerName || string(r.JSONSchema) == "" {
		s.t.Errorf("no structured output asked: %q %s", r.JSONName, r.JSONSchema)
	}
	tools, rejected := Sent(s.t, r)
	var answers []any
	for _, tool := range tools {
		s.mu.Lock()
		s.asked[tool.Name]++
		attempt := s.asked[tool.Name]
		s.mu.Unlock()
		if s.Break != nil {
			a, raw := s.Break(tool, attempt, rejected)
			if raw != "" {
				return modeltest.Turn{JSON: raw, Usage: s.Usage}
			}
			if a != nil {
				answers = append(answers, a)
				continue
			}
		}
		answers = append(answers, Write(tool, counts))
	}
	b, _ := json.Marshal(map[string]any{"tools": answers})
	return modeltest.Turn{JSON: string(b), Usage: s.Usage}
}

// everyday is the Scribe's knowledge of how people say things.
var everyday = map[string]string{
	"create": "remember", "entities": "a person", "delete": "forget", "relations": "how two people know each other",
	"observations": "some facts", "add": "note", "search": "look up", "nodes": "what I told you", "read": "recall",
	"graph": "everything you know", "open": "bring up", "file": "document", "list": "show", "directory": "folder",
	"write": "save", "weather": "rain or sun", "forecast": "tomorrow", "people": "a person",
}

// Write is a usable answer for tool with counts requests per style.
func Write(tool Tool, counts map[string]int) map[string]any {
	name := splitName(tool.Name)
	if i := strings.Index(tool.Name, "__"); i >= 0 {
		name = splitName(tool.Name[i+2:])
	}
	lead := strings.Fields(strings.ToLower(strings.TrimSuffix(strings.SplitN(tool.Description, ".", 2)[0], ".")))
	if len(lead) > 8 {
		lead = lead[:8]
	}
	var plain []string
	for _, w := range name {
		if e, ok := everyday[w]; ok {
			plain = append(plain, e)
		} else {
			plain = append(plain, w)
		}
	}
	var own, day, sit []string
	for i := range counts["own_words"] {
		own = append(own, fmt.Sprintf("%s %s", strings.Join(lead, " "), []string{"now", "for me", "again", "please", "today"}[i%5]))
	}
	for i := range counts["everyday"] {
		day = append(day, fmt.Sprintf("%s %s", []string{"please", "could you", "can you", "help me", "I want to"}[i%5], strings.Join(plain, " ")))
	}
	for i := range counts["situations"] {
		sit = append(sit, fmt.Sprintf("%s, so I need to %s", []string{"I am moving house", "my manager asked", "before the meeting", "the build broke", "a customer called"}[i%5], strings.Join(plain, " ")))
	}
	return map[string]any{"name": tool.Name, "own_words": own, "everyday": day, "situations": sit}
}

func splitName(s string) []string {
	return strings.FieldsFunc(strings.ToLower(s), func(r rune) bool { return r == '_' || r == '-' || r == '.' })
}
