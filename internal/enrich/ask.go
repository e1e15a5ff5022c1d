package enrich

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"

	"golang.org/x/sync/errgroup"

	"github.com/toolgen-dev/toolgen/internal/model"
)

// Defaults of Options and Enricher.
const (
	DefaultQueries     = 6
	DefaultConcurrency = 4
	DefaultBatch       = 1
)

// maxBatchBytes bounds the tools of one request when batching, so a batch
// of long descriptions does not become one huge request.
const maxBatchBytes = 12000

// maxRejected bounds the reason a second attempt quotes.
const maxRejected = 2000

// asker sends tools to a model, checks the answers and counts the cost.
// Every tool gets two attempts; the second quotes why the first was
// refused.
type asker struct {
	model       model.Model
	styles      Styles
	system      string
	concurrency int
	batch       int

	// settle is called once per tool, with mu held, as soon as its fate is
	// known.
	settle func(outcome)

	mu        sync.Mutex
	usage     model.Usage
	requests  int
	succeeded bool // a request got an answer: the server takes our requests
}

// outcome is what became of one tool.
type outcome struct {
	Tool    Tool
	Queries []string // nil when it failed
	// Failure says why there are no queries. Refused is set when the model
	// answered but the answer was unusable (as opposed to an error).
	Failure string
	Refused bool
}

func newAsker(m model.Model, queries, concurrency, batch int, settle func(outcome)) *asker {
	if concurrency <= 0 {
		concurrency = DefaultConcurrency
	}
	if batch <= 0 {
		batch = DefaultBatch
	}
	s := Spread(queries)
	return &asker{model: m, styles: s, system: systemPrompt(s), concurrency: concurrency, batch: batch, settle: settle}
}

// askAll settles every tool. It returns early only on an error that every
// other request would hit too (a bad key, an unknown model, a cancelled
// context); tools not settled by then are left as they were.
func (a *asker) askAll(ctx context.Context, tools []Tool) error {
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(a.concurrency)
	for _, b := range batches(tools, a.batch) {
		if gctx.Err() != nil {
			break
		}
		g.Go(func() error { return a.askBatch(gctx, b) })
	}
	if err := g.Wait(); err != nil {
		return err
	}
	return context.Cause(ctx)
}

// askBatch asks about one batch and, for the tools whose answer was
// unusable, once more.
func (a *asker) askBatch(ctx context.Context, tools []Tool) error {
	got, refused, err := a.ask(ctx, tools, "")
	if err != nil && a.fatal(ctx, err) {
		return err
	}
	a.settleAll(tools, got, nil, nil)
	retry, rejected := retryList(tools, got, refused)
	if len(retry) == 0 {
		return nil
	}
	got, refused, err = a.ask(ctx, retry, rejected)
	if err != nil && a.fatal(ctx, err) {
		return err
	}
	a.settleAll(retry, got, refused, err)
	return nil
}

// retryList returns the tools to ask again and the reason to quote.
func retryList(tools []Tool, got map[string][]string, refused map[string]string) ([]Tool, string) {
	var retry []Tool
	var why []string
	for _, t := range tools {
		if got[t.Name] != nil {
			continue
		}
		retry = append(retry, t)
		if r := refused[t.Name]; r != "" {
			why = append(why, t.Name+": "+r)
		}
	}
	return retry, truncate(strings.Join(why, "; "), maxRejected)
}

// settleAll settles the tools of one attempt: those with queries, and when
// refused or err is set (the last attempt), the rest as failures.
func (a *asker) settleAll(tools []Tool, got map[string][]string, refused map[string]string, err error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	for _, t := range tools {
		switch {
		case got[t.Name] != nil:
			a.settle(outcome{Tool: t, Queries: got[t.Name]})
		case refused[t.Name] != "":
			a.settle(outcome{Tool: t, Failure: refused[t.Name], Refused: true})
		case err != nil:
			a.settle(outcome{Tool: t, Failure: err.Error()})
		}
	}
}

// ask sends one request about tools. err is set when no answer came;
// otherwise each tool is either in got or in refused (an answer that is not
// JSON, or was cut off, refuses them all).
func (a *asker) ask(ctx context.Context, tools []Tool, rejected string) (got map[string][]string, refused map[string]string, err error) {
	if err := context.Cause(ctx); err != nil {
		return nil, nil, err // stopped before this request was sent
	}
	resp, err := a.model.Generate(ctx, &model.Request{
		System:     a.system,
		Messages:   []model.Message{model.NewUserMessage(userMessage(tools, rejected))},
		JSONSchema: json.RawMessage(answerSchema),
		JSONName:   AnswerName,
	})
	a.mu.Lock()
	a.requests++
	if resp != nil {
		a.usage.Add(resp.Usage) // an answer that is not JSON was still paid for
		a.succeeded = true
	}
	a.mu.Unlock()
	var why string
	var merr *model.Error
	switch {
	case err != nil && resp != nil && errors.As(err, &merr):
		why = merr.Message // it answered, but not in JSON
	case err != nil:
		return nil, nil, err
	case resp.StopReason == model.StopRefusal:
		why = "the model refused: " + truncate(resp.Text, 200)
	}
	if why != "" {
		refused = map[string]string{}
		for _, t := range tools {
			refused[t.Name] = why
		}
		return nil, refused, nil
	}
	got, refused = readAnswer(resp.JSON, tools, a.styles)
	return got, refused, nil
}

// fatal reports whether err would fail every request, so the run stops
// instead of asking about each tool in vain: a cancelled context, a
// refused key or an unknown model, a request the server rejects before it
// ever answered one, or a failure to build the request at all.
func (a *asker) fatal(ctx context.Context, err error) bool {
	if ctx.Err() != nil {
		return true
	}
	var merr *model.Error
	if !errors.As(err, &merr) {
		return true
	}
	switch merr.StatusCode {
	case http.StatusUnauthorized, http.StatusForbidden, http.StatusNotFound, http.StatusPaymentRequired:
		return true
	case http.StatusBadRequest, http.StatusUnprocessableEntity:
		a.mu.Lock()
		defer a.mu.Unlock()
		return !a.succeeded
	}
	return false
}

// batches groups tools in order, up to size tools and maxBatchBytes of
// message each; a larger tool goes alone.
func batches(tools []Tool, size int) [][]Tool {
	var out [][]Tool
	var cur []Tool
	curBytes := 0
	for _, t := range tools {
		n := len(userMessage([]Tool{t}, ""))
		if len(cur) > 0 && (len(cur) == size || curBytes+n > maxBatchBytes) {
			out = append(out, cur)
			cur, curBytes = nil, 0
		}
		cur = append(cur, t)
		curBytes += n
	}
	if len(cur) > 0 {
		out = append(out, cur)
	}
	return out
}

// Failure is a tool left unenriched, and why.
type Failure struct {
	Tool   string
	Reason string
}

func (f Failure) String() string { return fmt.Sprintf("%s: %s", f.Tool, f.Reason) }
