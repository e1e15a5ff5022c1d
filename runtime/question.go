package runtime

import (
	"context"

	"github.com/toolgen-dev/toolgen/internal/mcpconn"
)

// AskAs names the questions a Go tool asks the host with the returned ctx
// (Sample, Elicit, ListRoots): a host of the stateless revision sees them
// under name in its input-required result and may answer them ahead, in
// the inputResponses of its first call. Give each concurrent question its
// own name; a name already waiting for an answer falls back to the
// agent's numbering.
func AskAs(ctx context.Context, name string) context.Context {
	q := mcpconn.QuestionFrom(ctx)
	q.Name = name
	return mcpconn.WithQuestion(ctx, q)
}

// Required marks the questions asked with the returned ctx as ones the
// call cannot do without: a host of the stateless revision that did not
// declare it can answer them (sampling, elicitation, roots) gets a
// MissingRequiredClientCapability error (-32021) naming the capability for
// the whole request, rather than a failed or declined question.
func Required(ctx context.Context) context.Context {
	q := mcpconn.QuestionFrom(ctx)
	q.Required = true
	return mcpconn.WithQuestion(ctx, q)
}
