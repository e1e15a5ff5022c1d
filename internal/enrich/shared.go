package enrich

import (
	"context"
	"encoding/json"
	"strings"
	"time"
)

// SharedCache is the part of a runtime/store.Store the enrichment cache
// uses (the store satisfies it), so this package needs no store import.
type SharedCache interface {
	Get(ctx context.Context, key string) (value []byte, ok bool, err error)
	Set(ctx context.Context, key string, value []byte, ttl time.Duration) error
}

// sharedPrefix keeps the cache's keys apart in a shared store; an entry
// is keyed like its file.
const sharedPrefix = "enrich/"

// sharedTTL: an entry lasts as long as tools keep their descriptions; a
// month bounds what a store keeps for tools gone.
const sharedTTL = 30 * 24 * time.Hour

func sharedKey(hash string) string { return sharedPrefix + strings.TrimPrefix(hash, "sha256:") }

func (e *Enricher) readShared(ctx context.Context, t Tool) (entry, bool) {
	b, ok, err := e.Shared.Get(ctx, sharedKey(t.Hash()))
	if err != nil || !ok {
		return entry{}, false
	}
	return parseEntry(b, t)
}

func (e *Enricher) writeShared(ctx context.Context, c entry) {
	if e.Shared == nil {
		return
	}
	if b, err := json.Marshal(c); err == nil {
		e.Shared.Set(context.WithoutCancel(ctx), sharedKey(c.Hash), b, sharedTTL)
	}
}
