package pipeline

import (
	"errors"
	"fmt"
	"sync/atomic"
	"unicode/utf8"

	"github.com/toolgen-dev/toolgen/internal/redact"
)

// MaxErrorBytes caps the text of an error result. Errors are never
// spilled, and one that echoes a huge argument (a decode error, an
// upstream repeating its input) must not flood the model's context.
const MaxErrorBytes = 8 << 10

// ErrorText is an error as a result carries it: secrets scrubbed first (a
// cut must not leave half a secret), then capped at MaxErrorBytes.
func ErrorText(scrub *redact.Redactor, msg string) string {
	msg = scrub.String(msg)
	if len(msg) <= MaxErrorBytes {
		return msg
	}
	cut := MaxErrorBytes
	for cut > 0 && !utf8.RuneStart(msg[cut]) {
		cut--
	}
	return fmt.Sprintf("%s… (%d bytes truncated)", msg[:cut], len(msg)-cut)
}

// Budget is an agent context's context-window budget: the tokens of output
// (about 4 characters each) its calls may add. Zero Limit: unlimited.
type Budget struct {
	Limit int64
	used  atomic.Int64
}

// Used is the tokens charged so far.
func (b *Budget) Used() int64 { return b.used.Load() }

// ErrBudget is the error of an output that would exceed the budget.
var ErrBudget = errors.New("context window budget exceeded")

// Charge adds an output's tokens, refusing one that would exceed the budget.
func (b *Budget) Charge(out string) error { return b.ChargeBytes(len(out)) }

// ChargeBytes adds the tokens of an output of n bytes.
func (b *Budget) ChargeBytes(n int) error {
	tokens := int64(n+3) / 4
	for {
		used := b.used.Load()
		if used+tokens > b.Limit {
			return ErrBudget
		}
		if b.used.CompareAndSwap(used, used+tokens) {
			return nil
		}
	}
}
