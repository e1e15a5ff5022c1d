package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"sort"
	"sync"
	"time"

	spechcl "github.com/toolgen-dev/toolgen/hcl"
	"github.com/toolgen-dev/toolgen/hcl/ir"
	"github.com/toolgen-dev/toolgen/runtime"
	"github.com/toolgen-dev/toolgen/runtime/mcpconn"
	"github.com/toolgen-dev/toolgen/templates"
)

// runLock is `toolgen lock [-v] DIR`: connect to every server of the spec
// (init_concurrency at a time), record its tools/list in
// DIR/toolgen.lock.json and print one line per server.
//
// A server that fails is reported and keeps the entry it had in the old
// lock file, if any, so that one unreachable server never erases what
// was recorded for it; the file is still written for the others, and the
// exit status is 1. Servers no longer in the spec are dropped.
func runLock(args []string, stdout, stderr io.Writer) int {
	fset := flag.NewFlagSet("lock", flag.ContinueOnError)
	fset.SetOutput(stderr)
	verbose := fset.Bool("v", false, "print connection events (server.start, server.stderr …) on stderr")
	fset.Usage = func() {
		fmt.Fprintln(stderr, "usage: toolgen lock [-v] DIR")
		fset.PrintDefaults()
	}
	dir, code := oneDirArg(fset, args)
	if code >= 0 {
		return code
	}
	spec, files, diags := spechcl.LoadDir(dir)
	if diags.HasErrors() {
		writeDiags(stderr, "text", diags, files)
		return exitDiags
	}

	path := filepath.Join(dir, spechcl.LockFileName)
	old, err := readLock(path)
	if err != nil {
		fmt.Fprintf(stderr, "toolgen lock: %s: %v (it will be rewritten)\n", path, err)
		old = nil
	}

	logger := slog.New(slog.DiscardHandler)
	if *verbose {
		logger = slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: slog.LevelDebug}))
	}
	m := mcpconn.NewManager(logger)
	defer m.Close()

	results := lockServers(context.Background(), m, spec, os.LookupEnv, func(r lockResult) {
		if r.err != nil {
			fmt.Fprintf(stdout, "%s: error: %v\n", r.server, r.err)
		} else {
			fmt.Fprintf(stdout, "%s: %d tools\n", r.server, len(r.tools))
		}
	})

	lock := &spechcl.Lock{Servers: map[string]*spechcl.LockServer{}}
	failed, kept := 0, 0
	for _, r := range results {
		if r.err != nil {
			failed++
			if old != nil && old.Servers[r.server] != nil {
				lock.Servers[r.server] = old.Servers[r.server]
				kept++
			}
			continue
		}
		lock.Servers[r.server] = &spechcl.LockServer{Tools: r.tools}
	}
	data, err := lock.Marshal()
	if err != nil {
		fmt.Fprintf(stderr, "toolgen lock: %v\n", err)
		return exitDiags
	}
	if prev, err := os.ReadFile(path); err == nil && bytes.Equal(prev, data) {
		fmt.Fprintf(stdout, "%s unchanged\n", path)
	} else if err := writeAtomic(path, data); err != nil {
		fmt.Fprintf(stderr, "toolgen lock: %v\n", err)
		return exitDiags
	} else {
		fmt.Fprintf(stdout, "wrote %s\n", path)
	}
	if failed > 0 {
		fmt.Fprintf(stderr, "toolgen lock: %d of %d servers failed", failed, len(results))
		if kept > 0 {
			fmt.Fprintf(stderr, "; %d kept their previous entry", kept)
		}
		fmt.Fprintln(stderr)
		return exitDiags
	}
	return exitOK
}

func readLock(path string) (*spechcl.Lock, error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return spechcl.ParseLock(b)
}

// lockResult is one server's tools/list, or why it could not be read.
type lockResult struct {
	server string
	tools  []spechcl.LockTool
	err    error
}

// lockServers lists every server's tools, init_concurrency at a time,
// calling progress as each finishes; results are in spec order.
func lockServers(ctx context.Context, m *mcpconn.Manager, spec *ir.Spec, getenv func(string) (string, bool), progress func(lockResult)) []lockResult {
	results := make([]lockResult, len(spec.Servers))
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
			r := lockServer(ctx, m, srv, spec.Defaults.StartupTimeout, getenv)
			results[i] = r
			mu.Lock()
			progress(r)
			mu.Unlock()
		})
	}
	wg.Wait()
	return results
}

func lockServer(ctx context.Context, m *mcpconn.Manager, srv *ir.Server, startup time.Duration, getenv func(string) (string, bool)) lockResult {
	r := lockResult{server: srv.Name}
	rs := templates.RuntimeServer(srv)
	cfg, err := runtime.ServerConfig(&rs, getenv)
	if err != nil {
		r.err = err
		return r
	}
	if cfg.StartupTimeout == 0 {
		cfg.StartupTimeout = startup
	}
	conn, err := m.Acquire(ctx, cfg)
	if err != nil {
		r.err = err
		return r
	}
	defer conn.Release()
	for _, t := range conn.Tools() {
		r.tools = append(r.tools, spechcl.LockTool{Name: t.Name, Description: t.Description, InputSchema: t.InputSchema})
	}
	sort.Slice(r.tools, func(i, j int) bool { return r.tools[i].Name < r.tools[j].Name })
	return r
}
