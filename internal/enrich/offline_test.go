package enrich_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/toolgen-dev/toolgen/internal/enrich"
	"github.com/toolgen-dev/toolgen/internal/model/modeltest"
	"github.com/toolgen-dev/toolgen/internal/searcheval"
	"github.com/toolgen-dev/toolgen/runtime/search"
)

// TestOffline checks the step against the shared toolret data, with its
// reference enrichment standing in for the model; it is slow and needs
// ../shared/data/toolret, so it runs only when asked:
//
//	ENRICH_OFFLINE=1 go test -run Offline -v ./internal/enrich
//
// It checks that the reference requests pass the answer check, that the
// file Run writes converts to JSON lines that `toolgen find --eval --enrich`
// scores exactly like the reference, and it prints what enriching the
// catalog would send (the token estimate of the README).
func TestOffline(t *testing.T) {
	if os.Getenv("ENRICH_OFFLINE") == "" {
		t.Skip("set ENRICH_OFFLINE=1 to check against the shared toolret data")
	}
	dir := "../../../shared/data/toolret"
	if d := os.Getenv("TOOLRET_DIR"); d != "" {
		dir = d
	}
	data, err := os.ReadFile(filepath.Join(dir, "catalog.json"))
	if err != nil {
		t.Fatal(err)
	}
	docs, err := search.ParseCatalog(data)
	if err != nil {
		t.Fatal(err)
	}
	tools := enrich.FromDocs(docs)
	refPath := filepath.Join(dir, "enrichment.jsonl")
	refData, err := os.ReadFile(refPath)
	if err != nil {
		t.Fatal(err)
	}
	ref, err := search.ParseQueryLines(bytes.NewReader(refData))
	if err != nil {
		t.Fatal(err)
	}

	// The converter: lines → committed file → lines.
	f, unknown, err := enrich.FromLines(bytes.NewReader(refData), tools, "reference", "")
	if err != nil || len(unknown) > 0 || len(f.Tools) != len(tools) {
		t.Fatalf("FromLines: %v, unknown %v, %d of %d tools", err, unknown, len(f.Tools), len(tools))
	}
	b, _ := f.Marshal()
	back, err := search.ParseEnrichment(b)
	if err != nil {
		t.Fatal(err)
	}
	var lines bytes.Buffer
	enrich.WriteLines(&lines, back)
	again, err := search.ParseQueryLines(&lines)
	if err != nil || !cmp.Equal(again, ref) {
		t.Fatalf("lines do not round-trip: %v", err)
	}

	// The whole step, the reference requests as the model's answers (in
	// the file's order: two of each style).
	srv := modeltest.NewServer(t)
	srv.Respond(func(r *modeltest.Request) modeltest.Turn {
		asked, _ := sent(t, r)
		var answers []any
		for _, tool := range asked {
			q := ref[tool.Name]
			answers = append(answers, map[string]any{"name": tool.Name, "own_words": q[0:2], "everyday": q[2:4], "situations": q[4:6]})
		}
		b, _ := json.Marshal(map[string]any{"tools": answers})
		return modeltest.Turn{JSON: string(b)}
	})
	r, err := enrich.Run(ctxFor(t), tools, nil, enrich.Options{Model: newModel(t, "openai", srv), ModelName: "reference"})
	if err != nil {
		t.Fatal(err)
	}
	t.Log(r)
	for _, fl := range r.Failed {
		t.Logf("refused reference answer: %s", fl)
	}
	if len(r.Failed) > 0 {
		t.Errorf("%d reference answers refused", len(r.Failed))
	}
	out := filepath.Join(t.TempDir(), "enrichment.jsonl")
	var w bytes.Buffer
	enrich.WriteLines(&w, r.File)
	os.WriteFile(out, w.Bytes(), 0o600)

	// toolgen find --eval scores both files the same.
	score := func(file string) string {
		cmd := exec.Command("go", "run", "../../cmd/toolgen", "find", "--eval", dir, "--enrich", file)
		res, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("%s: %v\n%s", cmd, err, res)
		}
		return string(res)
	}
	want, got := score(refPath), score(out)
	t.Logf("toolgen find --eval with the step's file:\n%s", got)
	if got != want {
		t.Errorf("scores differ:\n%s", cmp.Diff(want, got))
	}
	set, err := searcheval.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	if err := set.LoadEnrichment(out); err != nil {
		t.Fatal(err)
	}
	all, _ := searcheval.Run(set.Queries, searcheval.IndexRanker(search.Build(set.Docs)))
	t.Logf("eval package: %s", all)

	// What enriching the catalog sends, by batch size.
	var report strings.Builder
	for _, batch := range []int{1, 2, 4, 8} {
		p, err := enrich.NewPlan(tools, nil, enrich.Options{Batch: batch})
		if err != nil {
			t.Fatal(err)
		}
		in, outTok := p.EstimatedInputTokens, p.EstimatedOutputTokens
		fmt.Fprintf(&report, "batch %d: %d requests, %d KB sent, ~%d input + ~%d output tokens = ~%d (%.0f a tool)\n",
			batch, p.Requests, p.InputBytes/1000, in, outTok, in+outTok, float64(in+outTok)/float64(len(tools)))
	}
	sizes := make([]int, len(tools))
	for i, tool := range tools {
		sizes[i] = len(enrich.UserMessage([]enrich.Tool{tool}, ""))
	}
	slices.Sort(sizes)
	fmt.Fprintf(&report, "system prompt %d bytes; one tool's message: median %d, p90 %d, max %d bytes\n",
		len(enrich.SystemPrompt(enrich.Spread(6))), sizes[len(sizes)/2], sizes[len(sizes)*9/10], sizes[len(sizes)-1])
	t.Logf("cost of enriching %d tools:\n%s", len(tools), report.String())
}
