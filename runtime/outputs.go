package runtime

import (
	"context"
	"errors"

	"github.com/toolgen-dev/toolgen/runtime/internal/statuspage"
)

// SpilledOutput is one output the size cap (response_max_bytes) stored on
// disk in place of a result; output_read pages through it. The status
// page shows the same.
type SpilledOutput = statuspage.Output

// OutputPage is one page of a spilled output, in output_read's shape.
type OutputPage = statuspage.Page

// Outputs lists the outputs the current agent context spilled, oldest
// first. A switch starts a new context with none.
func (s *Session) Outputs() []SpilledOutput {
	st := s.st.Load()
	if st == nil {
		return nil
	}
	var out []SpilledOutput
	for _, o := range st.spill.List() {
		out = append(out, SpilledOutput{Handle: o.Handle, Bytes: o.Bytes})
	}
	return out
}

// ReadOutput pages a spilled output of the current agent context: up to
// limit bytes from offset, never splitting a UTF-8 sequence. Unlike
// output_read it does not cut limit to the agent's response cap: a host
// reading for a person is not filling a model's context.
func (s *Session) ReadOutput(handle string, offset, limit int) (OutputPage, error) {
	st := s.st.Load()
	if st == nil {
		return OutputPage{}, errClosed
	}
	if limit <= 0 {
		return OutputPage{}, errors.New("limit must be at least 1")
	}
	chunk, total, err := st.spill.Read(context.Background(), handle, offset, limit)
	if err != nil {
		return OutputPage{}, err
	}
	next := offset + len(chunk)
	return OutputPage{Handle: handle, Offset: offset, Bytes: len(chunk), TotalBytes: total, NextOffset: next, EOF: next >= total, Content: chunk}, nil
}
