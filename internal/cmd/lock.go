package cmd

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"time"

	spechcl "github.com/toolgen-dev/toolgen/hcl"
	"github.com/toolgen-dev/toolgen/hcl/ir"
	"github.com/toolgen-dev/toolgen/internal/mcpauth"
	"github.com/toolgen-dev/toolgen/internal/mcpconn"
	"github.com/toolgen-dev/toolgen/runtime"
	"github.com/toolgen-dev/toolgen/templates"

	// lock connects to servers with an auth block through the runtime:
	// toolgen links the OAuth client (it is not an agent).
	_ "github.com/toolgen-dev/toolgen/runtime/oauth"
)

// runLock is `toolgen lock [-v] DIR`: connect to every server of the spec
// (init_concurrency at a time), record its tools/list in
// DIR/toolgen.lock.json and print one line per server.
//
// With --check it writes nothing: it prints how the servers' tools differ
// from the lock file and exits 1 when they do (or a server fails), for CI.
//
// A server that fails is reported and keeps the entry it had in the old
// lock file, if any (spechcl.Relock); the file is still written for the
// others, and the exit status is 1.
func runLock(args []string, _ io.Reader, stdout, stderr io.Writer) int {
	fset := newFlags("lock", stderr, "usage: toolgen lock [-v] [--login] [--check] DIR")
	verbose := fset.Bool("v", false, "print connection events (server.start, server.stderr …) on stderr")
	login := fset.Bool("login", false, "first log in (browser) to each server with an auth block that has no stored login, as AGENT login SERVER does")
	check := fset.Bool("check", false, "write nothing; print how the servers' tools differ from the lock file and exit 1 if they do")
	dir, spec, code := loadDirArg(fset, args, stderr)
	if code >= 0 {
		return code
	}

	path := filepath.Join(dir, spechcl.LockFileName)
	old, err := spechcl.ReadLockFile(path)
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

	if *login {
		if err := lockLogins(context.Background(), spec, os.LookupEnv, mcpauth.SystemBrowser, stderr); err != nil {
			fmt.Fprintf(stderr, "toolgen lock: %v\n", err)
			return exitDiags
		}
	}
	skills := &lockSkills{}
	list := listToolsAndSkills(m, spec.Defaults.StartupTimeout, os.LookupEnv, skills)
	results := spechcl.LockServers(context.Background(), spec, list, func(r spechcl.LockResult) {
		if r.Err != nil {
			fmt.Fprintf(stdout, "%s: error: %v\n", r.Server, r.Err)
		} else {
			fmt.Fprintf(stdout, "%s: %d tools\n", r.Server, len(r.Tools))
		}
	})
	lock, kept := spechcl.Relock(old, results)
	skills.record(lock, results)
	if *check {
		return lockCheck(path, old, lock, results, stdout, stderr)
	}
	changed, err := spechcl.WriteLockFile(path, lock)
	switch {
	case err != nil:
		fmt.Fprintf(stderr, "toolgen lock: %v\n", err)
		return exitDiags
	case changed:
		fmt.Fprintf(stdout, "wrote %s\n", path)
	default:
		fmt.Fprintf(stdout, "%s unchanged\n", path)
	}
	failed := 0
	for _, r := range results {
		if r.Err != nil {
			failed++
		}
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

// listTools connects to a server exactly as an agent binary would (the
// same runtime configuration, env() read from getenv) and lists its tools.
func listTools(m *mcpconn.Manager, startup time.Duration, getenv func(string) (string, bool)) spechcl.ToolLister {
	return listToolsAndSkills(m, startup, getenv, nil)
}

// listToolsAndSkills is listTools that also hands each connection to
// skills (nil: none), which lists the server's skills on it.
func listToolsAndSkills(m *mcpconn.Manager, startup time.Duration, getenv func(string) (string, bool), skills *lockSkills) spechcl.ToolLister {
	return func(ctx context.Context, srv *ir.Server) ([]spechcl.LockTool, error) {
		rs := templates.RuntimeServer(srv)
		cfg, err := runtime.ServerConfig(&rs, getenv)
		if err != nil {
			return nil, err
		}
		if cfg.StartupTimeout == 0 {
			cfg.StartupTimeout = startup
		}
		conn, err := m.Acquire(ctx, cfg)
		if err != nil {
			if srv.Auth != nil {
				err = fmt.Errorf("%w (toolgen lock --login logs in too)", err)
			}
			return nil, err
		}
		defer conn.Release()
		if skills != nil {
			if err := skills.collect(ctx, srv, conn); err != nil {
				return nil, err
			}
		}
		var tools []spechcl.LockTool
		for _, t := range conn.Tools() {
			lt := spechcl.LockTool{Name: t.Name, Title: t.Title, Description: t.Description, InputSchema: t.InputSchema, OutputSchema: t.OutputSchema}
			if t.Annotations != nil {
				lt.Annotations, _ = json.Marshal(t.Annotations)
			}
			if len(t.Meta) > 0 {
				lt.Meta, _ = json.Marshal(t.Meta)
			}
			tools = append(tools, lt)
		}
		return tools, nil
	}
}

// lockCheck is lock --check: the lock file against what the servers list
// now. A server that failed counts as a failure, not as unchanged.
func lockCheck(path string, old, now *spechcl.Lock, results []spechcl.LockResult, stdout, stderr io.Writer) int {
	failed := 0
	for _, r := range results {
		if r.Err != nil {
			failed++
		}
	}
	was, err := canonicalLock(old)
	if err == nil {
		now, err = canonicalLock(now)
	}
	if err != nil {
		fmt.Fprintf(stderr, "toolgen lock: %v\n", err)
		return exitDiags
	}
	diff := spechcl.LockDiff(was, now)
	switch {
	case diff != "":
		fmt.Fprintf(stdout, "%s differs from the servers' tools:\n%s", path, diff)
		fmt.Fprintln(stderr, "toolgen lock: the servers' tools drifted from the lock file; review the change and run toolgen lock to accept it")
		return exitDiags
	case failed > 0:
		fmt.Fprintf(stderr, "toolgen lock: %d of %d servers failed; their entries were not checked\n", failed, len(results))
		return exitDiags
	}
	fmt.Fprintf(stdout, "%s is current\n", path)
	return exitOK
}

// canonicalLock is a lock as Marshal writes it (schemas compacted, tools
// sorted), so that a diff shows only what the servers changed.
func canonicalLock(l *spechcl.Lock) (*spechcl.Lock, error) {
	if l == nil {
		return nil, nil
	}
	b, err := l.Marshal()
	if err != nil {
		return nil, err
	}
	return spechcl.ParseLock(b)
}
