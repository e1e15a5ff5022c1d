package store

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"slices"
	"strings"
	"sync"
)

// EnvURL and EnvPassword are the environment variables serve reads when
// --store is not given, and for the store's password. A password never
// sits in a URL on a command line, where ps shows it.
const (
	EnvURL      = "TOOLGEN_STORE"
	EnvPassword = "TOOLGEN_STORE_PASSWORD"
)

// Opener opens a store from its URL; getenv gives the password
// (EnvPassword) and whatever else the store reads from the environment.
type Opener func(ctx context.Context, u *url.URL, getenv func(string) (string, bool)) (Store, error)

var (
	mu      sync.Mutex
	openers = map[string]Opener{}
	// packages name the Go package that registers each known scheme, for
	// the error of a scheme the binary did not link.
	packages = map[string]string{
		"redis":  "github.com/toolgen-dev/toolgen/runtime/store/redis",
		"rediss": "github.com/toolgen-dev/toolgen/runtime/store/redis",
	}
)

// Register makes a URL scheme openable; a store package calls it from its
// init. Registering a scheme twice panics, as database/sql does.
func Register(scheme string, open Opener) {
	mu.Lock()
	defer mu.Unlock()
	if _, dup := openers[scheme]; dup {
		panic("store: Register called twice for scheme " + scheme)
	}
	openers[scheme] = open
}

// Open opens the store a URL names: "memory" (or "") for the embedded
// one, else a scheme some linked package registered. The store answered
// a Ping before Open returns, so a wrong address fails here, at start.
func Open(ctx context.Context, rawURL string, getenv func(string) (string, bool)) (Store, error) {
	if rawURL == "" || rawURL == "memory" || rawURL == "memory://" {
		return NewMemory(), nil
	}
	u, err := url.Parse(rawURL)
	if err != nil || u.Scheme == "" {
		return nil, fmt.Errorf("store URL %q: want SCHEME://HOST:PORT/… (like redis://127.0.0.1:6379/0) or memory", Redact(rawURL))
	}
	if u.User != nil {
		if _, has := u.User.Password(); has {
			return nil, fmt.Errorf("store URL %s: a password in the URL would show on command lines and in logs; put it in %s instead", Redact(rawURL), EnvPassword)
		}
	}
	mu.Lock()
	open := openers[u.Scheme]
	mu.Unlock()
	if open == nil {
		return nil, unlinked(u.Scheme)
	}
	if getenv == nil {
		getenv = func(string) (string, bool) { return "", false }
	}
	st, err := open(ctx, u, getenv)
	if err != nil {
		return nil, err
	}
	if err := st.Ping(ctx); err != nil {
		st.Close()
		var down *Unavailable
		if errors.As(err, &down) {
			return nil, err // it names the store already
		}
		return nil, &Unavailable{Store: st.Name(), Err: err}
	}
	return st, nil
}

// unlinked explains a scheme this binary has no store for.
func unlinked(scheme string) error {
	mu.Lock()
	have := []string{"memory"}
	for s := range openers {
		have = append(have, s)
	}
	mu.Unlock()
	slices.Sort(have)
	if pkg, ok := packages[scheme]; ok {
		return fmt.Errorf("store scheme %q is not linked into this binary: declare toolgen { store = %q } in the spec and generate again, or add import _ %q to the agent's main package, and rebuild (linked: %s)",
			scheme, strings.TrimSuffix(scheme, "s"), pkg, strings.Join(have, ", "))
	}
	return fmt.Errorf("unknown store scheme %q (linked: %s)", scheme, strings.Join(have, ", "))
}

// Redact is a store URL fit for a log line or an error: without any
// userinfo password or query values that could hold a secret.
func Redact(rawURL string) string {
	u, err := url.Parse(rawURL)
	if err != nil {
		return "(unparsable store URL)"
	}
	if u.User != nil {
		if _, has := u.User.Password(); has {
			u.User = url.UserPassword(u.User.Username(), "xxxxx")
		}
	}
	u.RawQuery = ""
	return u.String()
}
