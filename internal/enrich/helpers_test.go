package enrich_test

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/toolgen-dev/toolgen/internal/enrich"
	"github.com/toolgen-dev/toolgen/internal/model"
	"github.com/toolgen-dev/toolgen/internal/model/modeltest"
)

var providers = []string{"openai", "anthropic"}

const testKey = "sk-test-SECRET-0123456789"

func eachProvider(t *testing.T, f func(t *testing.T, provider string)) {
	for _, p := range providers {
		t.Run(p, func(t *testing.T) {
			t.Parallel()
			f(t, p)
		})
	}
}

// newModel points the real SDK of provider at srv.
func newModel(t *testing.T, provider string, srv *modeltest.Server, edit ...func(*model.Config)) model.Model {
	t.Helper()
	cfg := model.Config{Label: "fast", Provider: provider, Name: "test-model", APIKey: testKey, BaseURL: srv.OpenAIBaseURL()}
	if provider == "anthropic" {
		cfg.BaseURL = srv.AnthropicBaseURL()
	}
	zero := 0
	cfg.MaxRetries = &zero
	for _, e := range edit {
		e(&cfg)
	}
	m, err := model.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func ctxFor(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// sentTool is one tool as a request shows it.
type sentTool struct {
	Name        string   `json:"name"`
	Description string   `json:"description"`
	Parameters  []string `json:"parameters"`
}

// sent decodes the user message of a request, refusing any field the
// product does not mean to send.
func sent(t testing.TB, r *modeltest.Request) (tools []sentTool, rejected string) {
	t.Helper()
	if len(r.Messages) != 1 || r.Messages[0].Role != "user" {
		t.Fatalf("request messages = %+v, want one user message", r.Messages)
	}
	var msg struct {
		Tools    []sentTool `json:"tools"`
		Rejected string     `json:"rejected"`
	}
	dec := json.NewDecoder(strings.NewReader(r.Messages[0].Text))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&msg); err != nil {
		t.Fatalf("user message %q: %v", r.Messages[0].Text, err)
	}
	return msg.Tools, msg.Rejected
}

// scribe answers like a model that follows the prompt: it reads how many
// requests of each style to write from the system prompt, the tools from
// the user message, and writes each tool's requests from its name and
// description, with a small vocabulary of everyday words. break_, when
// set, may replace one tool's answer (attempt counts from 1).
type scribe struct {
	t      testing.TB
	usage  modeltest.Usage
	break_ func(tool sentTool, attempt int, rejected string) (answer map[string]any, raw string)

	mu    sync.Mutex
	asked map[string]int
}

func newScribe(t testing.TB) *scribe {
	return &scribe{t: t, usage: modeltest.Usage{Input: 300, Output: 90}, asked: map[string]int{}}
}

// times returns how often each tool was asked about.
func (s *scribe) times() map[string]int {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := map[string]int{}
	for k, v := range s.asked {
		out[k] = v
	}
	return out
}

var countRE = regexp.MustCompile(`"(own_words|everyday|situations)": (\d+ requests?|no requests)`)

func (s *scribe) respond(r *modeltest.Request) modeltest.Turn {
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
	tools, rejected := sent(s.t, r)
	var answers []any
	for _, tool := range tools {
		s.mu.Lock()
		s.asked[tool.Name]++
		attempt := s.asked[tool.Name]
		s.mu.Unlock()
		if s.break_ != nil {
			a, raw := s.break_(tool, attempt, rejected)
			if raw != "" {
				return modeltest.Turn{JSON: raw, Usage: s.usage}
			}
			if a != nil {
				answers = append(answers, a)
				continue
			}
		}
		answers = append(answers, write(tool, counts))
	}
	b, _ := json.Marshal(map[string]any{"tools": answers})
	return modeltest.Turn{JSON: string(b), Usage: s.usage}
}

// everyday is the scribe's knowledge of how people say things.
var everyday = map[string]string{
	"create": "remember", "entities": "a person", "delete": "forget", "relations": "how two people know each other",
	"observations": "some facts", "add": "note", "search": "look up", "nodes": "what I told you", "read": "recall",
	"graph": "everything you know", "open": "bring up", "file": "document", "list": "show", "directory": "folder",
	"write": "save", "weather": "rain or sun", "forecast": "tomorrow",
}

func write(tool sentTool, counts map[string]int) map[string]any {
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

// memoryTools are modelled on the tools of @modelcontextprotocol/server-memory.
var memoryTools = []enrich.Tool{
	{Name: "memory__create_entities", Description: "Create multiple new entities in the knowledge graph", Params: []string{"entities"}},
	{Name: "memory__create_relations", Description: "Create multiple new relations between entities in the knowledge graph. Relations should be in active voice", Params: []string{"relations"}},
	{Name: "memory__add_observations", Description: "Add new observations to existing entities in the knowledge graph", Params: []string{"observations"}},
	{Name: "memory__delete_entities", Description: "Delete multiple entities and their associated relations from the knowledge graph", Params: []string{"entityNames"}},
	{Name: "memory__delete_observations", Description: "Delete specific observations from entities in the knowledge graph", Params: []string{"deletions"}},
	{Name: "memory__delete_relations", Description: "Delete multiple relations from the knowledge graph", Params: []string{"relations"}},
	{Name: "memory__read_graph", Description: "Read the entire knowledge graph", Params: nil},
	{Name: "memory__search_nodes", Description: "Search for nodes in the knowledge graph based on a query", Params: []string{"query"}},
	{Name: "memory__open_nodes", Description: "Open specific nodes in the knowledge graph by their names", Params: []string{"names"}},
}
