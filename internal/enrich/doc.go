// Package enrich asks a language model, once per tool, for the requests a
// user or an assistant would type when they need exactly that tool, so tool
// search finds it by words its own description lacks ("remember a person"
// for memory__create_entities).
//
// Two callers share it:
//
//   - `toolgen enrich DIR` calls Run over the spec's catalog (declared tools
//     and locked server tools) and writes toolgen.enrich.json, the committed
//     search.Enrichment that `generate` indexes. Entries are keyed by
//     search.EnrichmentHash, so an unchanged tool is never asked again.
//   - An agent binary calls Enricher.EnrichMissing in the background for the
//     tools its servers report at run time without a lock entry; answers are
//     cached per user on disk by the same hash, so each tool is asked at most
//     once per machine, and the finder adds them with search.Index.With.
//
// What goes to the model is prompt.txt (versioned by its first line) and,
// per tool, its exposed name, description and top-level parameter names:
// exactly what the hash covers. Parameter descriptions, argument values and
// secrets are never sent.
//
// Every answer is structured output (model.Request.JSONSchema) and checked
// before it is kept: the count per style, each request's length, nothing
// empty; requests that only repeat the tool's name or another request are
// dropped. A tool whose answer is unusable is asked once more with the
// reason, then reported and left unenriched; one tool never fails the run.
//
// Cost: about 760 tokens a tool at one tool per request, 60% of it the
// prompt (see TestOffline, which measures what the shared 707-tool catalog
// would send); Options.Batch trades that down, unmeasured for quality.
package enrich
