package mcpconn

import "context"

// Question is what a Go tool says about the questions it asks the host
// with a ctx (sampling, elicitation, roots): a name the host sees them
// under, and whether the call cannot go on without an answer.
type Question struct {
	// Name keys the question in an input-required result (SEP-2322), so a
	// host can tell what is asked and answer it ahead; empty: the agent
	// names it by kind and number.
	Name string
	// Required: a host that did not declare it can answer such a question
	// gets MissingRequiredClientCapability (-32021) for the whole request,
	// instead of a declined or failed question the tool could work around.
	Required bool
}

type questionKey struct{}

// WithQuestion marks the questions asked with ctx.
func WithQuestion(ctx context.Context, q Question) context.Context {
	return context.WithValue(ctx, questionKey{}, q)
}

// QuestionFrom is what ctx says of its questions (zero: nothing).
func QuestionFrom(ctx context.Context) Question {
	q, _ := ctx.Value(questionKey{}).(Question)
	return q
}
