package loop

import (
	"fmt"
	"log/slog"

	"github.com/toolgen-dev/toolgen/internal/model"
)

// toolset converts a surface for the model. A tool no provider accepts (a
// server's tool whose exposed name is over 64 bytes, a schema that is not
// an object) is left out with an event rather than failing every turn.
func (r *run) toolset(tools []model.Tool) (*model.Toolset, error) {
	ts, err := model.NewToolset(tools)
	if err == nil {
		return ts, nil
	}
	kept := make([]model.Tool, 0, len(tools))
	seen := make(map[string]bool, len(tools))
	for _, t := range tools {
		if seen[t.Name] {
			r.skipped(t.Name, "listed twice")
			continue
		}
		if _, err := model.NewToolset([]model.Tool{t}); err != nil {
			r.skipped(t.Name, err.Error())
			continue
		}
		seen[t.Name] = true
		kept = append(kept, t)
	}
	ts, err = model.NewToolset(kept)
	if err != nil {
		return nil, fmt.Errorf("its tools cannot be given to the model: %v", err)
	}
	return ts, nil
}

func (r *run) skipped(name, reason string) {
	if r.log.Enabled(r.ctx, slog.LevelWarn) {
		r.log.LogAttrs(r.ctx, slog.LevelWarn, EventToolSkipped, slog.String("agent", r.name), slog.String("tool", name), slog.String("reason", reason))
	}
}
