package decl

import "time"

// Model is a model block: where an agent binary sends its agents' turns.
// BaseURL, APIKey and Headers keep env() as run-time lookups, so no key is
// compiled in.
type Model struct {
	Name        string // the spec's name ("fast")
	Provider    string // openai | anthropic
	ModelName   Value  // the provider's name ("gpt-4.1-mini"), or env("NAME", "gpt-4.1-mini")
	BaseURL     Value  // empty: the provider's own service
	APIKey      Value
	MaxTokens   int      // 0: the provider's default
	Temperature *float64 // nil: not sent
	Timeout     time.Duration
	Headers     []KeyValue
}

// DefaultMaxTurns bounds an agent's loop when the spec sets no max_turns.
const DefaultMaxTurns = 20

// Model returns the model block of that name, or nil.
func (r *Registry) Model(name string) *Model {
	for i := range r.Models {
		if r.Models[i].Name == name {
			return &r.Models[i]
		}
	}
	return nil
}

// Enrich is toolgen { enrich { at_run_time = true } }: the agent binary
// asks Model, in the background, for the search queries of the tools its
// servers report without a lock entry, and caches the answers on disk.
// Queries and Concurrency are as in the spec; 0 means the defaults.
type Enrich struct {
	Model       string // a model block's name
	Queries     int
	Concurrency int
}
