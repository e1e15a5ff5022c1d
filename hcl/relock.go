package hcl

import (
	"bytes"
	"context"
	"errors"
	"io/fs"
	"os"
	"slices"
	"strings"
	"sync"

	"github.com/google/renameio/v2"

	"github.com/toolgen-dev/toolgen/hcl/ir"
)

// Relocking (`toolgen lock`): list every server's tools again and record
// them in the lock file, keeping what a server that failed had.

// ToolLister lists one server's tools, connecting to it as an agent binary
// would.
type ToolLister func(ctx context.Context, s *ir.Server) ([]LockTool, error)

// LockResult is one server's listed tools, or why they could not be listed.
type LockResult struct {
	Server string
	Tools  []LockTool // sorted by name
	Err    error
}

// LockServers lists the tools of every server of spec,
// defaults.init_concurrency at a time, and calls progress (never two at
// once) as each finishes. The results are in spec order.
func LockServers(ctx context.Context, spec *ir.Spec, list ToolLister, progress func(LockResult)) []LockResult {
	results := make([]LockResult, len(spec.Servers))
	limit := spec.Defaults.InitConcurrency
	if limit <= 0 {
		limit = 4
	}
	sem := make(chan struct{}, limit)
	var mu sync.Mutex
	var wg sync.WaitGroup
	for i, srv := range spec.Servers {
		wg.Go(func() {
			sem <- struct{}{}
			defer func() { <-sem }()
			tools, err := list(ctx, srv)
			slices.SortFunc(tools, func(a, b LockTool) int { return strings.Compare(a.Name, b.Name) })
			results[i] = LockResult{Server: srv.Name, Tools: tools, Err: err}
			if progress != nil {
				mu.Lock()
				progress(results[i])
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	return results
}

// Relock records results over the old lock (nil when there was none): a
// listed server gets its fresh tools; a server that failed keeps the entry
// it had, so that one unreachable server never erases what was recorded
// for it; servers no longer in the spec are dropped. kept counts the
// failed servers that kept an entry.
func Relock(old *Lock, results []LockResult) (lock *Lock, kept int) {
	lock = &Lock{Servers: map[string]*LockServer{}}
	for _, r := range results {
		if r.Err == nil {
			lock.Servers[r.Server] = &LockServer{Tools: r.Tools}
			continue
		}
		if old != nil && old.Servers[r.Server] != nil {
			lock.Servers[r.Server] = old.Servers[r.Server]
			kept++
		}
	}
	return lock, kept
}

// ReadLockFile reads and parses a lock file; a missing file is a nil Lock.
func ReadLockFile(path string) (*Lock, error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return ParseLock(b)
}

// WriteLockFile writes the lock in its canonical form (Marshal) to path,
// replacing the file atomically, unless it already holds exactly that.
// changed reports whether it wrote.
func WriteLockFile(path string, l *Lock) (changed bool, err error) {
	data, err := l.Marshal()
	if err != nil {
		return false, err
	}
	if prev, err := os.ReadFile(path); err == nil && bytes.Equal(prev, data) {
		return false, nil
	}
	if err := renameio.WriteFile(path, data, 0o644); err != nil {
		return false, err
	}
	return true, nil
}
