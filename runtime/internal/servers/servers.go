// Package servers is what an agent's prompts and resources share: the
// servers they come from, each with its allow/deny lists, read list by list.
package servers

import (
	"context"
	"log/slog"

	"github.com/toolgen-dev/toolgen/runtime/decl"
	"github.com/toolgen-dev/toolgen/runtime/internal/event"
)

// Server is a server whose features (of source type S) the agent sees,
// with the server's allow/deny lists for them.
type Server[S any] struct {
	Name   string
	Source S // nil: not connected
	Filter decl.Filter
}

// EachListed calls each with every item of every connected server's list
// (what names the list in events), in server order. A server whose list
// cannot be read is skipped with a features.failed event.
func EachListed[S, T any](ctx context.Context, log *slog.Logger, servers []Server[S], what string, list func(S, context.Context) ([]T, error), each func(*Server[S], T)) {
	for i := range servers {
		srv := &servers[i]
		if any(srv.Source) == nil {
			continue
		}
		items, err := list(srv.Source, ctx)
		if err != nil {
			event.Emit(log, slog.LevelWarn, event.FeaturesFailed, slog.String("server", srv.Name), slog.String("list", what), slog.String("error", err.Error()))
			continue
		}
		for _, it := range items {
			each(srv, it)
		}
	}
}

// Answer is what a list request answers: the item of each entry, in order.
func Answer[E, T any](entries []E, item func(E) T) []T {
	out := make([]T, len(entries))
	for i, e := range entries {
		out[i] = item(e)
	}
	return out
}
