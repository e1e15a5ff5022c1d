package enrich

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestCleanQuery(t *testing.T) {
	for _, c := range []struct{ in, want, bad string }{
		{"  find   the\nlogin handler ", "find the login handler", ""},
		{`"find the login handler"`, "find the login handler", ""},
		{"“where is auth done”", "where is auth done", ""},
		{"", "", "is empty"},
		{" \t\n", "", "is empty"},
		{`""`, "", "is empty"},
		{"a\x00b", "", "holds control characters"},
		{"\xff\xfe", "", "is not valid UTF-8"},
		{strings.Repeat("word ", 40), "", "is longer than 160 characters"},
		{strings.Repeat("é", 160), strings.Repeat("é", 160), ""},
		{"?!", "", "has no words"},
	} {
		got, bad := cleanQuery(c.in)
		if got != c.want || bad != c.bad {
			t.Errorf("cleanQuery(%q) = %q, %q; want %q, %q", c.in, got, bad, c.want, c.bad)
		}
	}
}

func TestOnlyName(t *testing.T) {
	name := words("github__search_code")
	for q, want := range map[string]bool{
		"search code": true, "Search_Code": true, "code": true, "github search code": true,
		"search code for TODO": false, "github": false, "code search": false,
	} {
		if got := onlyName(words(q), name); got != want {
			t.Errorf("onlyName(%q) = %v", q, got)
		}
	}
}

func TestWords(t *testing.T) {
	for in, want := range map[string][]string{
		"memory__create_entities": {"memory", "create", "entities"},
		"getFileContents":         {"get", "file", "contents"},
		"acr-registry.list":       {"acr", "registry", "list"},
		"HTTPRequest v2":          {"httprequest", "v2"},
	} {
		if got := words(in); !cmp.Equal(got, want) {
			t.Errorf("words(%q) = %q, want %q", in, got, want)
		}
	}
}

// Requests that repeat the name or another request are dropped, extra
// ones fill in, the rest are ignored, and the queries come in style order.
func TestCheckTool(t *testing.T) {
	for _, c := range []struct {
		at        answerTool
		want, why string
	}{
		{answerTool{OwnWords: []string{"a one", "a two", "a three"}, Everyday: []string{"b one", "b two"}, Situations: []string{"c one", "c two"}},
			"a one|a two|b one|b two|c one|c two", ""},
		{answerTool{OwnWords: []string{"get weather", "a two"}, Everyday: []string{"A  Two", "b one", "b two"}, Situations: []string{"c one", "c two"}},
			"a two|b one|b two|c one|c two", ""},
		{answerTool{OwnWords: []string{"a"}, Everyday: nil, Situations: []string{"b", "c"}},
			"", `"own_words" has 1 usable requests, 2 are needed; "everyday" has 0 usable requests, 2 are needed`},
		{answerTool{OwnWords: []string{"a one", ""}, Everyday: []string{"b one", "b two"}, Situations: []string{"c one", "c two"}},
			"", `"own_words" has 1 usable requests, 2 are needed (request 2 is empty)`},
		{answerTool{OwnWords: []string{"a one", "a two"}, Everyday: []string{"b one", "b two"}, Situations: []string{"weather", "A one"}},
			"", `"situations" has no request of its own (request 1 only repeats the tool's name ("weather"), request 2 repeats another request)`},
	} {
		got, why := checkTool("weather__get_weather", &c.at, Spread(6))
		if strings.Join(got, "|") != c.want || why != c.why {
			t.Errorf("%+v:\n got %q, %q\nwant %q, %q", c.at, got, why, c.want, c.why)
		}
	}
}

func TestReadAnswerShapes(t *testing.T) {
	tools := []Tool{{Name: "a"}, {Name: "b"}}
	for raw, want := range map[string]string{
		`{}`:             `the answer is not {"tools": [...]}`,
		`{"tools": "x"}`: `the answer is not {"tools": [...]}: json: cannot unmarshal`,
		`{"tools": []}`:  "the answer has no entry for this tool",
		`[1, 2]`:         `the answer is not {"tools": [...]}: json: cannot unmarshal`,
		`{"tools": [{"name": "a", "own_words": 3}]}`: `json: cannot unmarshal`,
	} {
		got, refused := readAnswer(json.RawMessage(raw), tools, Spread(6))
		if len(got) != 0 || !strings.Contains(refused["a"], want) || !strings.Contains(refused["b"], strings.Split(want, ":")[0]) {
			t.Errorf("%s: got %v, refused %q", raw, got, refused)
		}
	}
}

// A huge description is cut before it is sent; the hash still covers all
// of it.
func TestUserMessageBounds(t *testing.T) {
	long := Tool{Name: "t", Description: strings.Repeat("ü", 5000), Params: make([]string, 100)}
	msg := userMessage([]Tool{long}, "")
	var m struct {
		Tools []toolMessage `json:"tools"`
	}
	if err := json.Unmarshal([]byte(msg), &m); err != nil {
		t.Fatal(err)
	}
	d := m.Tools[0].Description
	if len(d) > maxDescriptionBytes || !strings.HasSuffix(d, "…") || len(m.Tools[0].Parameters) != maxParams {
		t.Errorf("sent %d bytes of description, %d parameters", len(d), len(m.Tools[0].Parameters))
	}
	if strings.Contains(userMessage([]Tool{{Name: "a<b>&c"}}, ""), `\u003c`) {
		t.Error("HTML escaping in the message")
	}
}

// promptHashes pins each prompt version to its text (prompt.txt, the
// answer schema and the message format). When this test fails, the prompt
// changed: give it a new prompt_version in prompt.txt and add its hash.
var promptHashes = map[string]string{
	"enrich-1": "8bee1c94306a71d2524174ceed32ecc7f1acf251017c04cb11d081bee8f4cb0c",
}

func TestPromptVersion(t *testing.T) {
	h := sha256.New()
	h.Write([]byte(promptFile))
	h.Write([]byte(answerSchema + AnswerName))
	h.Write([]byte(userMessage([]Tool{{Name: "n", Description: "d", Params: []string{"p"}}}, "r")))
	got := hex.EncodeToString(h.Sum(nil))
	want, ok := promptHashes[PromptVersion]
	if !ok || want != got {
		t.Errorf("prompt version %q has hash %s, recorded %q: a changed prompt needs a new prompt_version", PromptVersion, got, want)
	}
	for n := 1; n <= MaxQueries; n++ {
		p := systemPrompt(Spread(n))
		if strings.Contains(p, "{{") || strings.Contains(p, "<no value>") {
			t.Fatalf("prompt for %d queries:\n%s", n, p)
		}
	}
	if p := systemPrompt(Spread(1)); !strings.Contains(p, `"own_words": no requests (an empty list)`) || !strings.Contains(p, `"everyday": 1 request in`) {
		t.Errorf("prompt for 1 query:\n%s", p)
	}
}
