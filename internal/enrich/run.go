package enrich

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/toolgen-dev/toolgen/internal/model"
	"github.com/toolgen-dev/toolgen/runtime/search"
)

// Options says how Run asks.
type Options struct {
	// Model writes the requests; ModelName is written into the file's
	// "model" field ("openai gpt-4.1-mini").
	Model     model.Model
	ModelName string
	// Queries is the number of requests per tool, spread over the three
	// styles (Spread); 0 means DefaultQueries, at most MaxQueries.
	Queries int
	// Concurrency bounds the requests in flight; 0 means DefaultConcurrency.
	Concurrency int
	// Batch is the most tools one request asks about (small tools only,
	// up to 12 KB of message); 0 means DefaultBatch.
	Batch int
	// Force asks about every tool, unchanged ones too.
	Force bool
	// Progress, when it is a terminal, shows a line redrawn as tools
	// finish; anything else gets nothing (the caller prints the Report).
	Progress io.Writer
}

func (o *Options) queries() (int, error) {
	switch {
	case o.Queries == 0:
		return DefaultQueries, nil
	case o.Queries < 0 || o.Queries > MaxQueries:
		return 0, fmt.Errorf("queries must be between 1 and %d, got %d", MaxQueries, o.Queries)
	}
	return o.Queries, nil
}

// Plan is what Run would do with the stored enrichment: the tools it would
// ask about, the ones it keeps and drops, and what asking would cost.
type Plan struct {
	Ask  []Tool   // new, changed (and with Force, every) tool
	Keep []string // unchanged tools whose stored queries stay
	Drop []string // stored tools the catalog no longer has
	// Changed are the tools of Ask that have stored queries for an older
	// version of themselves (kept if asking fails).
	Changed []string
	// Requests is the number of first attempts; InputBytes their system
	// prompt, schema and messages.
	Requests   int
	InputBytes int
	// EstimatedTokens guesses the cost at 4 bytes a token: the input sent,
	// and an answer of bytesPerQuery a request.
	EstimatedInputTokens, EstimatedOutputTokens int
}

// bytesPerQuery is the JSON size of one request in an answer: the
// requests of the shared toolret enrichment average 45 characters, plus
// quotes and a comma.
const bytesPerQuery = 48

// bytesPerAnswerTool is the rest of one tool's answer: its name and keys.
const bytesPerAnswerTool = 80

// NewPlan compares tools with the stored enrichment (nil when none).
func NewPlan(tools []Tool, stored *search.Enrichment, opt Options) (*Plan, error) {
	n, err := opt.queries()
	if err != nil {
		return nil, err
	}
	p := &Plan{}
	seen := make(map[string]bool, len(tools))
	for _, t := range tools {
		switch {
		case t.Name == "":
			return nil, errors.New("a tool has no name")
		case seen[t.Name]:
			return nil, fmt.Errorf("tool %q is listed twice", t.Name)
		}
		seen[t.Name] = true
		var old *search.EnrichedTool
		if stored != nil {
			old = stored.Tools[t.Name]
		}
		switch {
		case old != nil && old.Hash == t.Hash() && !opt.Force:
			p.Keep = append(p.Keep, t.Name)
		default:
			p.Ask = append(p.Ask, t)
			if old != nil && old.Hash != t.Hash() {
				p.Changed = append(p.Changed, t.Name)
			}
		}
	}
	if stored != nil {
		for name := range stored.Tools {
			if !seen[name] {
				p.Drop = append(p.Drop, name)
			}
		}
	}
	slices.SortFunc(p.Ask, func(a, b Tool) int { return strings.Compare(a.Name, b.Name) })
	slices.Sort(p.Keep)
	slices.Sort(p.Drop)
	slices.Sort(p.Changed)

	var schema bytes.Buffer
	json.Compact(&schema, []byte(answerSchema)) // as the model package sends it
	system := len(systemPrompt(Spread(n))) + schema.Len() + len(AnswerName)
	for _, b := range batches(p.Ask, opt.batch()) {
		p.Requests++
		p.InputBytes += system + len(userMessage(b, ""))
	}
	p.EstimatedInputTokens = p.InputBytes / 4
	p.EstimatedOutputTokens = len(p.Ask) * (n*bytesPerQuery + bytesPerAnswerTool) / 4
	return p, nil
}

func (o *Options) batch() int {
	if o.Batch <= 0 {
		return DefaultBatch
	}
	return o.Batch
}

// Report is what Run did.
type Report struct {
	// File is the enrichment to write with its Marshal: the stored queries
	// of unchanged tools and the new ones, without the tools the catalog no
	// longer has.
	File *search.Enrichment
	Plan *Plan
	// Enriched are the tools asked about that got queries, sorted.
	Enriched []string
	// Failed are the tools left without new queries, sorted by name. A
	// tool that had queries keeps them in File (for a changed tool,
	// generate warns that they are stale).
	Failed []Failure
	// OtherPrompt counts the kept tools whose queries come from another
	// prompt version or model than this run's (Force asks them again).
	OtherPrompt int
	Requests    int
	Usage       model.Usage
}

// Run asks the model about every new or changed tool and returns the
// enrichment to store. Tools are sent sorted by name, so a server's tools
// share batches. On an error that would fail every request (a bad key, a
// cancelled context) it stops and returns the Report so far with the
// error: its File holds everything already paid for, so write it anyway.
func Run(ctx context.Context, tools []Tool, stored *search.Enrichment, opt Options) (*Report, error) {
	plan, err := NewPlan(tools, stored, opt)
	if err != nil {
		return nil, err
	}
	n, _ := opt.queries()
	file := &search.Enrichment{Version: search.EnrichmentVersion, PromptVersion: PromptVersion, Model: opt.ModelName,
		Tools: make(map[string]*search.EnrichedTool, len(tools))}
	if stored != nil {
		file.PromptVersion, file.Model = stored.PromptVersion, stored.Model
		for _, name := range plan.Keep {
			file.Tools[name] = stored.Tools[name]
		}
		for _, t := range plan.Ask {
			if old := stored.Tools[t.Name]; old != nil {
				file.Tools[t.Name] = old // until asking succeeds
			}
		}
	}
	r := &Report{File: file, Plan: plan}
	if stored != nil && (stored.PromptVersion != PromptVersion || stored.Model != opt.ModelName) {
		r.OtherPrompt = len(plan.Keep)
	}
	if len(plan.Ask) == 0 {
		return r, nil
	}
	if opt.Model == nil {
		return nil, errors.New("no model to ask")
	}

	prog := newProgress(opt.Progress, len(plan.Ask))
	var a *asker
	a = newAsker(opt.Model, n, opt.Concurrency, opt.Batch, func(o outcome) {
		if o.Queries != nil {
			file.Tools[o.Tool.Name] = &search.EnrichedTool{Hash: o.Tool.Hash(), Queries: o.Queries}
			r.Enriched = append(r.Enriched, o.Tool.Name)
		} else {
			r.Failed = append(r.Failed, Failure{Tool: o.Tool.Name, Reason: o.Failure})
		}
		prog.show(len(r.Enriched)+len(r.Failed), len(r.Failed), a.usage)
	})
	err = a.askAll(ctx, plan.Ask)
	prog.clear()

	r.Requests, r.Usage = a.requests, a.usage
	slices.Sort(r.Enriched)
	slices.SortFunc(r.Failed, func(x, y Failure) int { return strings.Compare(x.Tool, y.Tool) })
	if len(r.Enriched) > 0 {
		file.PromptVersion, file.Model = PromptVersion, opt.ModelName
	}
	return r, err
}

// String is the summary a run ends with:
//
//	enrich: 707 tools: 650 unchanged, 54 enriched, 3 failed, 2 dropped; 57 requests, 48.2k tokens (40.1k in, 8.1k out)
func (r *Report) String() string {
	p := r.Plan
	var b strings.Builder
	fmt.Fprintf(&b, "enrich: %d tools: %d unchanged, %d enriched, %d failed, %d dropped",
		len(p.Keep)+len(p.Ask), len(p.Keep), len(r.Enriched), len(r.Failed), len(p.Drop))
	if notAsked := len(p.Ask) - len(r.Enriched) - len(r.Failed); notAsked > 0 {
		fmt.Fprintf(&b, ", %d not asked", notAsked)
	}
	fmt.Fprintf(&b, "; %d requests, %s tokens (%s in, %s out)", r.Requests,
		formatTokens(r.Usage.InputTokens+r.Usage.OutputTokens), formatTokens(r.Usage.InputTokens), formatTokens(r.Usage.OutputTokens))
	return b.String()
}

// formatTokens writes 950, 48.2k, 1.3M.
func formatTokens(n int64) string {
	switch {
	case n < 1000:
		return fmt.Sprint(n)
	case n < 1_000_000:
		return fmt.Sprintf("%.1fk", float64(n)/1e3)
	}
	return fmt.Sprintf("%.1fM", float64(n)/1e6)
}
