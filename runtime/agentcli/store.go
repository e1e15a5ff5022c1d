package agentcli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"strconv"
	"strings"
	"time"

	"github.com/toolgen-dev/toolgen/runtime"
	"github.com/toolgen-dev/toolgen/runtime/store"
)

// storeFlags are serve's flags for running as one of several replicas.
type storeFlags struct {
	url          *string
	rateLimit    *string
	budgetWindow *time.Duration
	stateless    *bool
}

func addStoreFlags(fs *flag.FlagSet) storeFlags {
	return storeFlags{
		url: fs.String("store", "", "--http: keep what replicas share in the store at `URL` (redis://HOST:PORT/DB, rediss:// for TLS; default $"+store.EnvURL+
			"); the password comes from $"+store.EnvPassword+". A store other than memory serves stateless HTTP"),
		rateLimit:    fs.String("rate-limit", "", "--http: at most `N/DURATION` tool calls per caller (like 100/1m), counted across replicas with --store"),
		budgetWindow: fs.Duration("budget-window", runtime.DefaultBudgetWindow, "with --store: how long a caller's context_budget counts before it starts again"),
		stateless:    fs.Bool("stateless", false, "--http: serve stateless streamable HTTP (no MCP sessions; any request may reach any replica)"),
	}
}

// set reports whether a flag of the group was given.
func (f storeFlags) given(fs *flag.FlagSet) bool {
	var set bool
	fs.Visit(func(fl *flag.Flag) {
		switch fl.Name {
		case "store", "rate-limit", "budget-window", "stateless":
			set = true
		}
	})
	return set
}

// openStore opens the store serve was asked for, --store or $TOOLGEN_STORE
// ("" or memory: none, everything stays in this process). Redis absent at
// start stops serve with a message naming the store: a replica that
// cannot share its state must not take traffic.
func (c *cli) openStore(f storeFlags, log *slog.Logger) (store.Store, error) {
	raw := *f.url
	if raw == "" {
		raw, _ = c.opts.Getenv(store.EnvURL)
	}
	if raw == "" || raw == "memory" {
		return nil, nil
	}
	ctx, cancel := context.WithTimeout(c.ctx, 10*time.Second)
	defer cancel()
	st, err := store.Open(ctx, raw, c.opts.Getenv)
	if err != nil {
		return nil, fmt.Errorf("serve --store: %w", err)
	}
	log.Info("serve.store", "store", st.Name())
	return st, nil
}

// parseRateLimit reads N/DURATION ("100/1m", "5/s").
func parseRateLimit(s string) (runtime.RateLimit, error) {
	if s == "" {
		return runtime.RateLimit{}, nil
	}
	n, per, ok := strings.Cut(s, "/")
	calls, err := strconv.Atoi(n)
	if !ok || err != nil || calls < 1 {
		return runtime.RateLimit{}, fmt.Errorf("--rate-limit %q: want N/DURATION with N ≥ 1, like 100/1m", s)
	}
	if per != "" && (per[0] < '0' || per[0] > '9') {
		per = "1" + per // "5/s" reads as 5 per 1s
	}
	d, err := time.ParseDuration(per)
	if err != nil || d <= 0 {
		return runtime.RateLimit{}, fmt.Errorf("--rate-limit %q: %q is not a positive duration (like 1m, 10s)", s, per)
	}
	return runtime.RateLimit{Calls: calls, Per: d}, nil
}

var errStoreNeedsHTTP = errors.New("--store, --rate-limit, --budget-window and --stateless are for --http")
