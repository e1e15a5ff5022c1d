package mcpauth

import (
	"context"
	"errors"
	"fmt"
	"html"
	"io"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
)

// browser is a login's user side: it shows the authorization URL (opens a
// browser when it can, prints it always) and waits for the authorization
// server to send the browser back to the loopback redirect URI.
type browser struct {
	server      string
	redirectURI string
	open        func(url string) error
	out         io.Writer

	lns  []net.Listener
	srv  *http.Server
	done chan struct{}

	mu      sync.Mutex
	waiting map[string]chan callback // by state
}

type callback struct {
	res *auth.AuthorizationResult
	err error
}

// listenRedirect opens the loopback listener of uri (default
// http://127.0.0.1:<free port>/callback) and returns the browser side.
func listenRedirect(uri, server string, open func(string) error, out io.Writer) (*browser, error) {
	if uri == "" {
		uri = "http://127.0.0.1/callback"
	}
	u, err := parseRedirect(uri)
	if err != nil {
		return nil, err
	}
	port := u.Port()
	if port == "" {
		port = "0"
	}
	host := u.Hostname()
	first := host
	if host == "localhost" {
		first = "127.0.0.1"
	}
	ln, err := net.Listen("tcp", net.JoinHostPort(first, port))
	if err != nil {
		return nil, fmt.Errorf("login: listening for the browser on %s: %w", uri, err)
	}
	b := &browser{server: server, open: open, out: out, lns: []net.Listener{ln}, done: make(chan struct{}), waiting: map[string]chan callback{}}
	bound := strconv.Itoa(ln.Addr().(*net.TCPAddr).Port)
	if host == "localhost" {
		// A browser may resolve localhost to ::1 first.
		if ln6, err := net.Listen("tcp", net.JoinHostPort("::1", bound)); err == nil {
			b.lns = append(b.lns, ln6)
		}
	}
	u.Host = net.JoinHostPort(host, bound)
	if u.Path == "" {
		u.Path = "/"
	}
	b.redirectURI = u.String()
	mux := http.NewServeMux()
	mux.HandleFunc(u.Path, b.serveCallback)
	b.srv = &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	var wg sync.WaitGroup
	for _, l := range b.lns {
		wg.Go(func() { b.srv.Serve(l) })
	}
	go func() { wg.Wait(); close(b.done) }()
	return b, nil
}

func (b *browser) close() error {
	err := b.srv.Close()
	<-b.done
	return err
}

// fetch is go-sdk's AuthorizationCodeFetcher: show the URL, wait for the
// redirect carrying the state of this URL.
func (b *browser) fetch(ctx context.Context, args *auth.AuthorizationArgs) (*auth.AuthorizationResult, error) {
	return b.authorize(ctx, args.URL)
}

func (b *browser) authorize(ctx context.Context, authURL string) (*auth.AuthorizationResult, error) {
	u, err := url.Parse(authURL)
	if err != nil {
		return nil, fmt.Errorf("login: authorization URL: %w", err)
	}
	state := u.Query().Get("state")
	if state == "" {
		return nil, errors.New("login: the authorization URL has no state")
	}
	ch := make(chan callback, 1)
	b.mu.Lock()
	b.waiting[state] = ch
	b.mu.Unlock()
	defer func() {
		b.mu.Lock()
		delete(b.waiting, state)
		b.mu.Unlock()
	}()
	if b.out != nil {
		fmt.Fprintf(b.out, "To log in to server %q, open this URL in a browser:\n\n  %s\n\nWaiting for the authorization server to redirect to %s …\n", b.server, authURL, b.redirectURI)
	}
	if b.open != nil {
		if err := b.open(authURL); err != nil && b.out != nil {
			fmt.Fprintf(b.out, "(no browser opened: %v; open the URL above yourself)\n", err)
		}
	}
	select {
	case c := <-ch:
		return c.res, c.err
	case <-ctx.Done():
		return nil, fmt.Errorf("login: no answer from the browser: %w", ctx.Err())
	}
}

// serveCallback receives the browser's redirect. Only a redirect carrying
// the state of a login in progress counts: anything else reaching the
// loopback port (another page, a stale tab) is turned away and changes
// nothing.
func (b *browser) serveCallback(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	b.mu.Lock()
	ch := b.waiting[q.Get("state")]
	delete(b.waiting, q.Get("state"))
	b.mu.Unlock()
	if ch == nil {
		http.Error(w, "No login is waiting for this answer. Start it again from the agent.", http.StatusBadRequest)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	if e := q.Get("error"); e != "" {
		msg := e
		if d := q.Get("error_description"); d != "" {
			msg += ": " + d
		}
		ch <- callback{err: fmt.Errorf("login: the authorization server refused: %s", msg)}
		w.WriteHeader(http.StatusForbidden)
		fmt.Fprintf(w, "<!doctype html><title>Login failed</title><p>Login to %s failed: %s</p>", html.EscapeString(b.server), html.EscapeString(msg))
		return
	}
	if q.Get("code") == "" {
		ch <- callback{err: errors.New("login: the redirect carries no authorization code")}
		http.Error(w, "No authorization code.", http.StatusBadRequest)
		return
	}
	ch <- callback{res: &auth.AuthorizationResult{Code: q.Get("code"), State: q.Get("state"), Iss: q.Get("iss")}}
	fmt.Fprintf(w, "<!doctype html><title>Logged in</title><p>Logged in to %s. You can close this window.</p>", html.EscapeString(b.server))
}
