package enrich

import "io"

// DrawProgressTo makes the progress line draw into w as if it were a
// terminal, until the test ends.
func DrawProgressTo(w io.Writer) (restore func()) {
	old := isTerminal
	isTerminal = func(x io.Writer) bool { return x == w }
	return func() { isTerminal = old }
}

// SystemPrompt, AnswerSchema and UserMessage expose what is sent.
func SystemPrompt(s Styles) string                     { return systemPrompt(s) }
func UserMessage(tools []Tool, rejected string) string { return userMessage(tools, rejected) }

const AnswerSchema = answerSchema
