package tools

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/toolgen-dev/toolgen/runtime/decl"
)

// Spill reads back outputs the size cap stored (pipeline.Spill).
type Spill interface {
	Read(ctx context.Context, handle string, offset, limit int) (chunk string, total int, err error)
}

type outputReadArgs struct {
	Handle string `json:"handle"`
	Offset int    `json:"offset,omitempty" jsonschema:"Byte offset (default 0)."`
	Limit  int    `json:"limit,omitempty" jsonschema:"Bytes to read."`
}

var outputReadSchema = schemaOf[outputReadArgs](func(s *jsonschema.Schema) {
	s.Properties["offset"].Minimum = minimum(0)
	s.Properties["limit"].Minimum = minimum(1)
})

// OutputRead pages through outputs over maxBytes that sp stored.
func OutputRead(sp Spill, maxBytes int) Tool {
	// a page plus its JSON escaping must stay under the cap
	page := max(maxBytes/2, 1)
	return Tool{
		Name:        decl.ToolOutputRead,
		Description: fmt.Sprintf("Read a stored tool output (over %d bytes) by handle, a page at a time; continue at the next_offset each page returns.", maxBytes),
		Kind:        decl.KindOutput, Namespace: "output", Schema: outputReadSchema, NoCap: true,
		Run: func(ctx context.Context, args json.RawMessage) (string, error) {
			var a outputReadArgs
			if err := decode(args, &a); err != nil {
				return "", err
			}
			if a.Limit <= 0 || a.Limit > page {
				a.Limit = page
			}
			chunk, total, err := sp.Read(ctx, a.Handle, a.Offset, a.Limit)
			if err != nil {
				return "", err
			}
			next := a.Offset + len(chunk)
			return marshal(map[string]any{
				"handle": a.Handle, "offset": a.Offset, "bytes": len(chunk), "total_bytes": total,
				"next_offset": next, "eof": next >= total, "content": chunk,
			})
		},
	}
}
