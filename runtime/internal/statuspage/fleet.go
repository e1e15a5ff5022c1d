package statuspage

import (
	"context"
	"encoding/json"
	"time"
)

// FleetView is what the page shows of the other replicas of the agent
// when they share a store (serve --store): the replicas alive now, their
// servers' health and the recent calls of all of them. Nil: one process,
// and /api/status has no "fleet".
type FleetView interface {
	Fleet(ctx context.Context) Fleet
}

// Fleet is the "fleet" of GET /api/status.
type Fleet struct {
	Store    string    `json:"store"`   // the shared store's name (no password)
	Replica  string    `json:"replica"` // the replica that answered
	Replicas []Replica `json:"replicas"`
	// Calls are the recent tool.call and tool.blocked events of every
	// replica, oldest first, each an event of /api/events plus "replica".
	Calls []json.RawMessage `json:"calls"`
	// Error says why the store could not be read; the rest of the status
	// is this replica's own and still true.
	Error string `json:"error,omitempty"`
}

// Replica is one replica that heartbeat recently.
type Replica struct {
	ID      string    `json:"id"`
	Started time.Time `json:"started"`
	Seen    time.Time `json:"seen"` // its last heartbeat
	Servers []Server  `json:"servers"`
}
