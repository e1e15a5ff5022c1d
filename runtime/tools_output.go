package runtime

import (
	"context"
	"encoding/json"
)

// outputRead pages through an output the size cap stored.
func outputRead(_ context.Context, st *agentState, _ *entry, args json.RawMessage) (string, error) {
	var a struct {
		Handle string `json:"handle"`
		Offset int    `json:"offset"`
		Limit  int    `json:"limit"`
	}
	if err := decode(args, &a); err != nil {
		return "", err
	}
	// a page plus its JSON escaping must stay under the cap
	page := max(st.maxBytes/2, 1)
	if a.Limit <= 0 || a.Limit > page {
		a.Limit = page
	}
	chunk, total, err := st.spill.Read(a.Handle, a.Offset, a.Limit)
	if err != nil {
		return "", err
	}
	next := a.Offset + len(chunk)
	return marshal(map[string]any{
		"handle": a.Handle, "offset": a.Offset, "bytes": len(chunk), "total_bytes": total,
		"next_offset": next, "eof": next >= total, "content": chunk,
	})
}
