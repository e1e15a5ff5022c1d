package enrich_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/toolgen-dev/toolgen/internal/enrich"
	"github.com/toolgen-dev/toolgen/internal/model"
	"github.com/toolgen-dev/toolgen/internal/model/modeltest"
	"github.com/toolgen-dev/toolgen/runtime/search"
)

// run enriches tools against a fresh scripted server and returns the
// report and the server.
func run(t *testing.T, provider string, s *scribe, tools []enrich.Tool, stored *search.Enrichment, edit func(*enrich.Options)) (*enrich.Report, *modeltest.Server) {
	t.Helper()
	srv := modeltest.NewServer(t)
	srv.RequireKey(testKey)
	srv.Respond(s.Respond)
	opt := enrich.Options{Model: newModel(t, provider, srv), ModelName: provider + " test-model"}
	if edit != nil {
		edit(&opt)
	}
	r, err := enrich.Run(ctxFor(t), tools, stored, opt)
	if err != nil {
		t.Fatal(err)
	}
	return r, srv
}

// TestRunWritesFile: every tool asked once, with exactly its name,
// description and parameter names; the file holds six requests per tool in
// style order under the tool's hash, and reads back with ParseEnrichment.
func TestRunWritesFile(t *testing.T) {
	eachProvider(t, func(t *testing.T, provider string) {
		s := newScribe(t)
		r, srv := run(t, provider, s, memoryTools, nil, nil)

		reqs := srv.Requests()
		if len(reqs) != len(memoryTools) || r.Requests != len(reqs) {
			t.Fatalf("%d requests (report says %d), want one per tool (%d)", len(reqs), r.Requests, len(memoryTools))
		}
		var asked []sentTool
		for _, req := range reqs {
			if req.System != enrich.SystemPrompt(enrich.Spread(6)) {
				t.Errorf("system prompt is not prompt.txt for 6 requests:\n%s", req.System)
			}
			var got, want any
			json.Unmarshal(req.JSONSchema, &got)
			json.Unmarshal([]byte(enrich.AnswerSchema), &want)
			if !cmp.Equal(got, want) {
				t.Errorf("schema sent = %s", req.JSONSchema)
			}
			tools, rejected := sent(t, req)
			if rejected != "" {
				t.Errorf("a first attempt says %q was rejected", rejected)
			}
			asked = append(asked, tools...)
		}
		slices.SortFunc(asked, func(a, b sentTool) int { return strings.Compare(a.Name, b.Name) })
		var want []sentTool
		for _, tool := range memoryTools {
			params := tool.Params
			if params == nil {
				params = []string{}
			}
			want = append(want, sentTool{Name: tool.Name, Description: tool.Description, Parameters: params})
		}
		slices.SortFunc(want, func(a, b sentTool) int { return strings.Compare(a.Name, b.Name) })
		if diff := cmp.Diff(want, asked); diff != "" {
			t.Errorf("tools sent (-want +got):\n%s", diff)
		}

		f := r.File
		if f.PromptVersion != enrich.PromptVersion || f.Model != provider+" test-model" || len(f.Tools) != len(memoryTools) {
			t.Fatalf("file: prompt %q, model %q, %d tools", f.PromptVersion, f.Model, len(f.Tools))
		}
		for _, tool := range memoryTools {
			et := f.Tools[tool.Name]
			if et == nil || et.Hash != search.EnrichmentHash(tool.Name, tool.Description, tool.Params) {
				t.Fatalf("%s: entry %+v", tool.Name, et)
			}
			w := write(sentTool{Name: tool.Name, Description: tool.Description, Parameters: tool.Params}, map[string]int{"own_words": 2, "everyday": 2, "situations": 2})
			wantQ := slices.Concat(w["own_words"].([]string), w["everyday"].([]string), w["situations"].([]string))
			if diff := cmp.Diff(wantQ, et.Queries); diff != "" {
				t.Errorf("%s queries (-want +got):\n%s", tool.Name, diff)
			}
		}
		b, err := f.Marshal()
		if err != nil {
			t.Fatal(err)
		}
		back, err := search.ParseEnrichment(b)
		if err != nil {
			t.Fatalf("the written file does not read back: %v\n%s", err, b)
		}
		if !cmp.Equal(back, f) {
			t.Errorf("file changed on the way through disk:\n%s", cmp.Diff(f, back))
		}

		n := int64(len(memoryTools))
		if want := (model.Usage{InputTokens: 300 * n, OutputTokens: 90 * n}); r.Usage != want {
			t.Errorf("usage %+v, want %+v", r.Usage, want)
		}
		if len(r.Failed) != 0 || len(r.Enriched) != len(memoryTools) {
			t.Errorf("enriched %v, failed %v", r.Enriched, r.Failed)
		}
		if got, want := r.String(), "enrich: 9 tools: 0 unchanged, 9 enriched, 0 failed, 0 dropped; 9 requests, 3.5k tokens (2.7k in, 810 out)"; got != want {
			t.Errorf("summary\n got %s\nwant %s", got, want)
		}
	})
}

// TestUnchangedToolsAreNotAsked: a second run over the same tools sends
// nothing and writes the same bytes.
func TestUnchangedToolsAreNotAsked(t *testing.T) {
	eachProvider(t, func(t *testing.T, provider string) {
		first, _ := run(t, provider, newScribe(t), memoryTools, nil, nil)
		s := newScribe(t)
		second, srv := run(t, provider, s, memoryTools, first.File, nil)
		if n := len(srv.Requests()); n != 0 || second.Requests != 0 {
			t.Fatalf("%d requests for unchanged tools", n)
		}
		a, _ := first.File.Marshal()
		b, _ := second.File.Marshal()
		if !bytes.Equal(a, b) {
			t.Errorf("file changed:\n%s", cmp.Diff(string(a), string(b)))
		}
		if len(second.Plan.Keep) != len(memoryTools) || second.String() != "enrich: 9 tools: 9 unchanged, 0 enriched, 0 failed, 0 dropped; 0 requests, 0 tokens (0 in, 0 out)" {
			t.Errorf("report: %s", second)
		}

		// Force asks again.
		forced, srv := run(t, provider, newScribe(t), memoryTools, first.File, func(o *enrich.Options) { o.Force = true })
		if n := len(srv.Requests()); n != len(memoryTools) || len(forced.Enriched) != len(memoryTools) {
			t.Errorf("forced: %d requests, %d enriched", n, len(forced.Enriched))
		}
	})
}

// TestChangedToolIsAsked: a changed description, a new tool and a removed
// tool: only the first two are asked; the removed one leaves the file; the
// rest keep their queries.
func TestChangedToolIsAsked(t *testing.T) {
	eachProvider(t, func(t *testing.T, provider string) {
		first, _ := run(t, provider, newScribe(t), memoryTools, nil, nil)

		tools := slices.Clone(memoryTools[1:]) // memory__create_entities is gone
		tools[2].Description = "Remove entities, and every relation that names them, from the knowledge graph"
		changed := tools[2].Name
		tools = append(tools, enrich.Tool{Name: "weather__forecast", Description: "Get the forecast for a city", Params: []string{"city", "days"}})

		s := newScribe(t)
		second, srv := run(t, provider, s, tools, first.File, nil)
		if diff := cmp.Diff(map[string]int{changed: 1, "weather__forecast": 1}, s.Times()); diff != "" {
			t.Errorf("asked (-want +got):\n%s", diff)
		}
		if len(srv.Requests()) != 2 {
			t.Errorf("%d requests, want 2", len(srv.Requests()))
		}
		f := second.File
		if f.Tools["memory__create_entities"] != nil {
			t.Error("a removed tool stays in the file")
		}
		if got := f.Tools[changed]; got.Hash != tools[2].Hash() || !strings.HasPrefix(got.Queries[0], "remove entities, and every relation") {
			t.Errorf("changed tool: %+v", got)
		}
		for _, tool := range tools[:2] {
			if !cmp.Equal(f.Tools[tool.Name], first.File.Tools[tool.Name]) {
				t.Errorf("%s lost its stored queries", tool.Name)
			}
		}
		if len(f.Tools) != len(tools) || !slices.Equal(second.Plan.Drop, []string{"memory__create_entities"}) || !slices.Equal(second.Plan.Changed, []string{changed}) {
			t.Errorf("%d tools in the file; plan %+v", len(f.Tools), second.Plan)
		}
	})
}

// TestBrokenAnswers: answers that are not JSON, too short, empty or only
// the tool's name are refused, asked once more with the reason, then
// reported; a tool fixed on the second attempt is kept, and every other
// tool is enriched.
func TestBrokenAnswers(t *testing.T) {
	eachProvider(t, func(t *testing.T, provider string) {
		tools := append(slices.Clone(memoryTools[:4]),
			enrich.Tool{Name: "broken_json", Description: "Answers with text that is not JSON"},
			enrich.Tool{Name: "too_few", Description: "Answers with one request per style"},
			enrich.Tool{Name: "empty_strings", Description: "Answers with empty requests"},
			enrich.Tool{Name: "name_only", Description: "Answers with its own name"},
			enrich.Tool{Name: "fixed_later", Description: "Answers badly once"},
		)
		var mu sync.Mutex
		rejections := map[string][]string{}
		s := newScribe(t)
		s.Break = func(tool sentTool, attempt int, rejected string) (map[string]any, string) {
			mu.Lock()
			rejections[tool.Name] = append(rejections[tool.Name], rejected)
			mu.Unlock()
			good := write(tool, map[string]int{"own_words": 2, "everyday": 2, "situations": 2})
			switch tool.Name {
			case "broken_json":
				return nil, `{"tools": [{"name": "broken_json", "own_words": ["cut off`
			case "too_few":
				for _, k := range []string{"own_words", "everyday", "situations"} {
					good[k] = good[k].([]string)[:1]
				}
			case "empty_strings":
				good["everyday"] = []string{"", "   "}
			case "name_only":
				good["situations"] = []string{"name only", "Name_Only"}
			case "fixed_later":
				if attempt == 1 {
					good["own_words"] = []string{"a request", strings.Repeat("far too long ", 20)}
				}
			case "memory__delete_entities":
				// Repeats are dropped without asking again.
				good["everyday"] = []string{"forget a person", "Forget  a person"}
			default:
				return nil, ""
			}
			return good, ""
		}
		r, _ := run(t, provider, s, tools, nil, func(o *enrich.Options) { o.Concurrency = 2 })

		wantFailed := map[string]string{
			"broken_json":   "",
			"too_few":       `"own_words" has 1 usable requests, 2 are needed`,
			"empty_strings": `"everyday" has 0 usable requests, 2 are needed (request 1 is empty, request 2 is empty)`,
			"name_only":     `"situations" has no request of its own (request 1 only repeats the tool's name ("name only"), request 2 only repeats the tool's name ("Name_Only"))`,
		}
		got := map[string]string{}
		for _, f := range r.Failed {
			got[f.Tool] = f.Reason
		}
		if len(got) != len(wantFailed) {
			t.Fatalf("failed: %v", r.Failed)
		}
		for name, want := range wantFailed {
			if !strings.Contains(got[name], want) {
				t.Errorf("%s failed with %q, want %q", name, got[name], want)
			}
		}
		if !strings.Contains(got["broken_json"], "not") {
			t.Errorf("broken_json failed with %q", got["broken_json"])
		}
		for name := range wantFailed {
			if r.File.Tools[name] != nil {
				t.Errorf("%s is in the file", name)
			}
		}
		for _, name := range []string{"fixed_later", "memory__create_entities", "memory__delete_entities"} {
			if r.File.Tools[name] == nil {
				t.Errorf("%s is not in the file", name)
			}
		}
		if q := r.File.Tools["fixed_later"].Queries; q[0] != "answers badly once now" {
			t.Errorf("fixed_later kept %q", q)
		}
		if q := r.File.Tools["memory__delete_entities"].Queries; len(q) != 5 || q[2] != "forget a person" {
			t.Errorf("memory__delete_entities kept %q", q)
		}
		// Every refused tool was asked twice, the second time with the
		// reason; the others once.
		for _, tool := range tools {
			want := 1
			if _, bad := wantFailed[tool.Name]; bad || tool.Name == "fixed_later" {
				want = 2
			}
			if s.Times()[tool.Name] != want {
				t.Errorf("%s asked %d times, want %d", tool.Name, s.Times()[tool.Name], want)
			}
		}
		if rj := rejections["fixed_later"]; len(rj) != 2 || rj[0] != "" || !strings.Contains(rj[1], "fixed_later: \"own_words\" has 1 usable requests, 2 are needed (request 2 is longer than 160 characters)") {
			t.Errorf("fixed_later was told %q", rj)
		}
		if rj := rejections["broken_json"]; len(rj) != 2 || rj[1] == "" {
			t.Errorf("broken_json was told %q", rj)
		}
		if r.Requests != len(tools)+5 {
			t.Errorf("%d requests, want %d", r.Requests, len(tools)+5)
		}
	})
}

// TestFailedChangedToolKeepsOldQueries: when re-asking a changed tool
// fails, its older queries stay (generate warns they are stale), so a
// failure loses nothing.
func TestFailedChangedToolKeepsOldQueries(t *testing.T) {
	first, _ := run(t, "openai", newScribe(t), memoryTools[:2], nil, nil)
	tools := slices.Clone(memoryTools[:2])
	tools[0].Description += " (now with types)"
	s := newScribe(t)
	s.Break = func(tool sentTool, attempt int, rejected string) (map[string]any, string) {
		return map[string]any{"name": tool.Name, "own_words": []string{}, "everyday": []string{}, "situations": []string{}}, ""
	}
	r, _ := run(t, "openai", s, tools, first.File, nil)
	if len(r.Failed) != 1 || r.Failed[0].Tool != tools[0].Name {
		t.Fatalf("failed %v", r.Failed)
	}
	if !cmp.Equal(r.File.Tools[tools[0].Name], first.File.Tools[tools[0].Name]) {
		t.Errorf("the old queries were not kept: %+v", r.File.Tools[tools[0].Name])
	}
}

// TestFatalErrorStopsRun: a refused key fails every request, so the run
// stops at once instead of asking about each tool twice; the report so far
// comes with the error.
func TestFatalErrorStopsRun(t *testing.T) {
	eachProvider(t, func(t *testing.T, provider string) {
		srv := modeltest.NewServer(t)
		srv.RequireKey("another-key")
		srv.Respond(newScribe(t).Respond)
		tools := append(slices.Clone(memoryTools), memoryTools...)
		for i := range tools[len(memoryTools):] {
			tools[len(memoryTools)+i].Name += "_copy"
		}
		r, err := enrich.Run(ctxFor(t), tools, nil, enrich.Options{Model: newModel(t, provider, srv), Concurrency: 2})
		var merr *model.Error
		if !errors.As(err, &merr) || merr.StatusCode != 401 || strings.Contains(err.Error(), testKey) {
			t.Fatalf("err = %v", err)
		}
		if n := len(srv.Requests()); n > 2 {
			t.Errorf("%d requests after the key was refused, want at most one per worker", n)
		}
		if r == nil || len(r.File.Tools) != 0 {
			t.Errorf("report %+v", r)
		}
	})
}

// TestConcurrencyIsBounded: never more requests in flight than asked for,
// and that many are used.
func TestConcurrencyIsBounded(t *testing.T) {
	const limit = 3
	s := newScribe(t)
	var inFlight, most atomic.Int32
	full := make(chan struct{})
	var once sync.Once
	srv := modeltest.NewServer(t)
	srv.Respond(func(r *modeltest.Request) modeltest.Turn {
		n := inFlight.Add(1)
		defer inFlight.Add(-1)
		for m := most.Load(); n > m && !most.CompareAndSwap(m, n); m = most.Load() {
		}
		if n == limit {
			once.Do(func() { close(full) })
		}
		select { // hold the first requests until all workers are busy
		case <-full:
		case <-time.After(10 * time.Second):
		}
		return s.Respond(r)
	})
	_, err := enrich.Run(ctxFor(t), memoryTools, nil, enrich.Options{Model: newModel(t, "openai", srv), Concurrency: limit})
	if err != nil {
		t.Fatal(err)
	}
	if got := most.Load(); got != limit {
		t.Errorf("at most %d requests in flight, want %d", got, limit)
	}
}

// TestBatch: several tools per request, each answered for itself, a tool
// missing from a batch's answer asked again.
func TestBatch(t *testing.T) {
	eachProvider(t, func(t *testing.T, provider string) {
		s := newScribe(t)
		s.Break = func(tool sentTool, attempt int, rejected string) (map[string]any, string) {
			if tool.Name == "memory__open_nodes" && attempt == 1 {
				return map[string]any{"name": "something_else", "own_words": []string{}, "everyday": []string{}, "situations": []string{}}, ""
			}
			return nil, ""
		}
		r, srv := run(t, provider, s, memoryTools, nil, func(o *enrich.Options) { o.Batch = 4 })
		reqs := srv.Requests()
		var sizes []int
		for _, req := range reqs {
			tools, _ := sent(t, req)
			sizes = append(sizes, len(tools))
		}
		// 9 tools sorted by name in batches of 4, and open_nodes again.
		slices.Sort(sizes)
		if !slices.Equal(sizes, []int{1, 1, 4, 4}) {
			t.Errorf("batch sizes %v", sizes)
		}
		if len(reqs) != 4 || len(r.File.Tools) != len(memoryTools) || len(r.Failed) != 0 {
			t.Errorf("%d requests, %d tools, failed %v", len(reqs), len(r.File.Tools), r.Failed)
		}
		for _, tool := range memoryTools {
			if q := r.File.Tools[tool.Name].Queries; !strings.HasPrefix(q[0], strings.ToLower(strings.Fields(tool.Description)[0])) {
				t.Errorf("%s got %q", tool.Name, q)
			}
		}
	})
}

// TestSpreadQueries: other counts than six are spread over the styles,
// and the prompt and the check follow.
func TestSpreadQueries(t *testing.T) {
	for n, want := range map[int]enrich.Styles{1: {0, 1, 0}, 2: {0, 1, 1}, 3: {1, 1, 1}, 4: {1, 2, 1}, 5: {1, 2, 2}, 6: {2, 2, 2}, 8: {2, 3, 3}, 30: {10, 10, 10}} {
		if got := enrich.Spread(n); got != want || got.Total() != n {
			t.Errorf("Spread(%d) = %+v, want %+v", n, got, want)
		}
	}
	r, _ := run(t, "anthropic", newScribe(t), memoryTools[:2], nil, func(o *enrich.Options) { o.Queries = 4 })
	for name, et := range r.File.Tools {
		if len(et.Queries) != 4 {
			t.Errorf("%s: %q", name, et.Queries)
		}
	}
	if _, err := enrich.Run(ctxFor(t), memoryTools, nil, enrich.Options{Queries: 31}); err == nil {
		t.Error("31 queries accepted")
	}
}

// TestProgress: on a terminal the line is redrawn as tools finish and
// cleared at the end; written to a file it stays silent.
func TestProgress(t *testing.T) {
	var buf bytes.Buffer
	defer enrich.DrawProgressTo(&buf)()
	run(t, "openai", newScribe(t), memoryTools, nil, func(o *enrich.Options) { o.Progress = &buf })
	out := buf.String()
	if !strings.Contains(out, "\r\033[Kenrich: 9/9 tools, 0 failed, 3.5k tokens") || !strings.HasSuffix(out, "\r\033[K") {
		t.Errorf("progress %q", out)
	}

	f, err := os.CreateTemp(t.TempDir(), "log")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	run(t, "openai", newScribe(t), memoryTools, nil, func(o *enrich.Options) { o.Progress = f })
	if fi, _ := f.Stat(); fi.Size() != 0 {
		t.Errorf("%d bytes of progress written to a file", fi.Size())
	}
}

// TestIndexFindsToolThroughEnrichment: "remember a person" shares no word
// with memory__create_entities's name, description or parameters; the
// index finds it only once the model's requests are indexed.
func TestIndexFindsToolThroughEnrichment(t *testing.T) {
	eachProvider(t, func(t *testing.T, provider string) {
		const query = "remember a person"
		r, _ := run(t, provider, newScribe(t), memoryTools, nil, nil)
		docs := make([]search.Doc, len(memoryTools))
		for i, tool := range memoryTools {
			docs[i] = search.Doc{Name: tool.Name, Description: tool.Description, Params: tool.Params}
		}
		if hits := search.Build(docs).Search(query, 3); len(hits) > 0 && hits[0].Name == "memory__create_entities" {
			t.Fatalf("found without enrichment: %v", hits)
		}
		queries := map[string][]string{}
		for name, et := range r.File.Tools {
			queries[name] = et.Queries
		}
		search.EnrichDocs(docs, queries)
		hits := search.Build(docs).Search(query, 3)
		if len(hits) == 0 || hits[0].Name != "memory__create_entities" {
			t.Errorf("%q found %v", query, hits)
		}
	})
}

func TestReportCountsNotAsked(t *testing.T) {
	r := &enrich.Report{Plan: &enrich.Plan{Ask: make([]enrich.Tool, 3)}, Enriched: []string{"a"}, Usage: model.Usage{InputTokens: 1_250_000, OutputTokens: 48_200}}
	if got, want := r.String(), "enrich: 3 tools: 0 unchanged, 1 enriched, 0 failed, 0 dropped, 2 not asked; 0 requests, 1.3M tokens (1.2M in, 48.2k out)"; got != want {
		t.Errorf("\n got %s\nwant %s", got, want)
	}
}

// TestCancelKeepsWhatWasPaidFor: a run cut short returns the context's
// error and a file with every answer that came before.
func TestCancelKeepsWhatWasPaidFor(t *testing.T) {
	ctx, cancel := context.WithCancel(ctxFor(t))
	defer cancel()
	s := newScribe(t)
	srv := modeltest.NewServer(t)
	var n atomic.Int32
	srv.Respond(func(r *modeltest.Request) modeltest.Turn {
		if n.Add(1) == 4 {
			cancel()
			return modeltest.Turn{Delay: 10 * time.Second}
		}
		return s.Respond(r)
	})
	r, err := enrich.Run(ctx, memoryTools, nil, enrich.Options{Model: newModel(t, "openai", srv), Concurrency: 1})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v", err)
	}
	if len(r.File.Tools) != 3 || len(r.Enriched) != 3 || len(r.Failed) != 0 || r.Requests != 4 {
		t.Errorf("%d tools in the file, report %s", len(r.File.Tools), r)
	}
	if !strings.Contains(r.String(), ", 6 not asked;") {
		t.Errorf("report %s", r)
	}
}
