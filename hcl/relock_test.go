package hcl

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/toolgen-dev/toolgen/hcl/ir"
)

// TestRelock: a listed server gets its fresh tools, a failed one keeps its
// previous entry (or has none), a server gone from the spec is dropped.
func TestRelock(t *testing.T) {
	old := &Lock{Servers: map[string]*LockServer{
		"broken": {Tools: []LockTool{{Name: "kept"}}},
		"fresh":  {Tools: []LockTool{{Name: "stale"}}},
		"gone":   {Tools: []LockTool{{Name: "old"}}},
	}}
	results := []LockResult{
		{Server: "broken", Err: errors.New("down")},
		{Server: "fresh", Tools: []LockTool{{Name: "new"}}},
		{Server: "never", Err: errors.New("down")},
	}
	lock, kept := Relock(old, results)
	want := map[string]*LockServer{
		"broken": {Tools: []LockTool{{Name: "kept"}}},
		"fresh":  {Tools: []LockTool{{Name: "new"}}},
	}
	if diff := cmp.Diff(want, lock.Servers); diff != "" || kept != 1 {
		t.Errorf("kept %d, servers (-want +got):\n%s", kept, diff)
	}
	if lock, kept := Relock(nil, results); len(lock.Servers) != 1 || kept != 0 {
		t.Errorf("without an old lock: %v, kept %d", lock.Servers, kept)
	}
}

// TestLockServers: results come in spec order with sorted tools, at most
// init_concurrency servers are listed at once, and progress is never
// called twice at the same time.
func TestLockServers(t *testing.T) {
	spec := &ir.Spec{Defaults: ir.Defaults{InitConcurrency: 2}}
	for _, n := range []string{"a", "b", "c", "d", "e"} {
		spec.Servers = append(spec.Servers, &ir.Server{Name: n})
	}
	var running, peak, inProgress atomic.Int32
	release := make(chan struct{})
	var once sync.Once
	list := func(ctx context.Context, s *ir.Server) ([]LockTool, error) {
		n := running.Add(1)
		defer running.Add(-1)
		for p := peak.Load(); n > p && !peak.CompareAndSwap(p, n); p = peak.Load() {
		}
		if n == 2 {
			once.Do(func() { close(release) })
		}
		// The first waits for a second to run beside it; a limit of 1
		// would make it wait in vain, and fail below rather than hang.
		select {
		case <-release:
		case <-time.After(10 * time.Second):
		}
		if s.Name == "c" {
			return nil, errors.New("down")
		}
		return []LockTool{{Name: s.Name + "_z"}, {Name: s.Name + "_a"}}, nil
	}
	var calls []string
	results := LockServers(context.Background(), spec, list, func(r LockResult) {
		if inProgress.Add(1) != 1 {
			t.Error("progress called concurrently")
		}
		calls = append(calls, r.Server)
		inProgress.Add(-1)
	})
	if p := peak.Load(); p != 2 {
		t.Errorf("at most %d servers at once, want 2", p)
	}
	if len(calls) != 5 {
		t.Errorf("progress calls: %v", calls)
	}
	for i, r := range results {
		if r.Server != spec.Servers[i].Name {
			t.Errorf("result %d is %s, want %s", i, r.Server, spec.Servers[i].Name)
		}
		if r.Server == "c" {
			if r.Err == nil {
				t.Error("c: no error")
			}
			continue
		}
		if len(r.Tools) != 2 || r.Tools[0].Name != r.Server+"_a" {
			t.Errorf("%s: tools %v, want sorted", r.Server, r.Tools)
		}
	}
}

// TestLockFileReadWrite: a missing file reads as no lock; writing the
// same lock twice leaves the file alone the second time.
func TestLockFileReadWrite(t *testing.T) {
	path := filepath.Join(t.TempDir(), LockFileName)
	if l, err := ReadLockFile(path); l != nil || err != nil {
		t.Fatalf("missing file: %v, %v", l, err)
	}
	lock := &Lock{Servers: map[string]*LockServer{"s": {Tools: []LockTool{{Name: "t"}}}}}
	if changed, err := WriteLockFile(path, lock); !changed || err != nil {
		t.Fatalf("first write: %v, %v", changed, err)
	}
	if changed, err := WriteLockFile(path, lock); changed || err != nil {
		t.Fatalf("second write: %v, %v", changed, err)
	}
	back, err := ReadLockFile(path)
	if err != nil || back.Servers["s"].Tools[0].Hash != ToolHash("t", "", nil) {
		t.Fatalf("read back: %+v, %v", back, err)
	}
	if err := os.WriteFile(path, []byte("{"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadLockFile(path); err == nil {
		t.Error("a broken lock file read without error")
	}
}
