package finder

import (
	"context"
	"log/slog"
	"sync"

	"github.com/toolgen-dev/toolgen/internal/enrich"
	"github.com/toolgen-dev/toolgen/runtime/internal/event"
	"github.com/toolgen-dev/toolgen/runtime/search"
)

// Enrichment gives the tools a pool finds at run time (a server without a
// lock entry) the search queries a model writes for them, as toolgen
// enrich does for locked tools at build time. It asks in the background,
// off every call path, through an enrich.Enricher, whose disk cache makes
// each tool a question at most once per machine; until an answer comes a
// tool is found by its own words.
type Enrichment struct {
	enricher *enrich.Enricher
	log      *slog.Logger
	// added receives the docs that got queries, to index them again.
	added func([]search.Doc)

	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup

	mu    sync.Mutex
	known map[string][]string // tool hash → its queries
	asked map[string]bool     // tool hashes asked about in this process
}

// NewEnrichment asks e; added is called, from a background goroutine and
// without locks held, with the docs that got queries.
func NewEnrichment(e *enrich.Enricher, log *slog.Logger, added func([]search.Doc)) *Enrichment {
	ctx, cancel := context.WithCancel(context.Background())
	return &Enrichment{enricher: e, log: log, added: added, ctx: ctx, cancel: cancel,
		known: map[string][]string{}, asked: map[string]bool{}}
}

func hashOf(d search.Doc) string {
	return enrich.Tool{Name: d.Name, Description: d.Description, Params: d.Params}.Hash()
}

// Doc returns d with the queries written for the tool it describes (the
// same name, description and parameters), when there are some.
func (en *Enrichment) Doc(d search.Doc) search.Doc {
	en.mu.Lock()
	defer en.mu.Unlock()
	if len(en.known) > 0 && d.Queries == nil {
		d.Queries = en.known[hashOf(d)]
	}
	return d
}

// Want asks, in the background, for the queries of the docs that have none
// and were not asked about before in this process.
func (en *Enrichment) Want(docs []search.Doc) {
	var tools []enrich.Tool
	byName := map[string]search.Doc{}
	en.mu.Lock()
	if en.ctx.Err() != nil {
		en.mu.Unlock()
		return
	}
	for _, d := range docs {
		h := hashOf(d)
		if d.Queries != nil || en.asked[h] || en.known[h] != nil {
			continue
		}
		en.asked[h] = true
		tools = append(tools, enrich.Tool{Name: d.Name, Description: d.Description, Params: d.Params})
		byName[d.Name] = d
	}
	if len(tools) == 0 {
		en.mu.Unlock()
		return
	}
	en.wg.Add(1)
	en.mu.Unlock()
	go func() {
		defer en.wg.Done()
		found, err := en.enricher.EnrichMissing(en.ctx, tools)
		var out []search.Doc
		en.mu.Lock()
		for name, q := range found.Queries {
			d := byName[name]
			en.known[hashOf(d)] = q
			d.Queries = q
			out = append(out, d)
		}
		en.mu.Unlock()
		if len(out) > 0 && en.ctx.Err() == nil {
			en.added(out) // before the event, which says they are found
		}
		attrs := []slog.Attr{slog.Int("tools", len(tools)), slog.Int("cached", found.Cached), slog.Int("asked", found.Asked),
			slog.Int("failed", len(found.Failed)), slog.Int64("tokens_in", found.Usage.InputTokens), slog.Int64("tokens_out", found.Usage.OutputTokens)}
		level := slog.LevelInfo
		if err != nil {
			level = slog.LevelWarn
			attrs = append(attrs, slog.String("error", err.Error()))
		}
		event.Emit(en.log, level, event.ToolsEnriched, attrs...)
	}()
}

// Close stops the questions in flight (what was answered stays cached)
// and waits for them.
func (en *Enrichment) Close() {
	en.mu.Lock()
	en.cancel()
	en.mu.Unlock()
	en.wg.Wait()
}
