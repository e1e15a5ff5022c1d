package mcpauth_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"log/slog"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/toolgen-dev/toolgen/internal/mcpauth"
	"github.com/toolgen-dev/toolgen/internal/mcpconn"
	"go.uber.org/goleak"
)

const childEnv = "MCPAUTH_TEST_CHILD"

func TestMain(m *testing.M) {
	if os.Getenv(childEnv) != "" {
		os.Exit(child())
	}
	code := m.Run()
	if code == 0 {
		if err := goleak.Find(); err != nil {
			fmt.Fprintln(os.Stderr, "goleak:", err)
			code = 1
		}
	}
	os.Exit(code)
}

// child is another agent process: it opens the stored login (its clock
// MCPAUTH_CLOCK ahead, like the test's) and calls whoami through
// internal/mcpconn, printing the answer or the error.
func child() int {
	offset, _ := time.ParseDuration(os.Getenv("MCPAUTH_CLOCK"))
	cfg := mcpauth.Config{Server: "docs", Agent: "myagent", URL: os.Getenv("MCPAUTH_URL"), Store: mcpauth.OpenStore(os.Getenv("MCPAUTH_STORE"))}
	h, err := mcpauth.New(cfg)
	if err != nil {
		fmt.Println("error:", err)
		return 1
	}
	defer h.Close()
	mcpauth.SetClock(h, func() time.Time { return time.Now().Add(offset) })
	m := mcpconn.NewManager(slog.New(slog.NewTextHandler(os.Stderr, nil)))
	defer m.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	c, err := m.Acquire(ctx, mcpconn.Config{Name: "docs", Transport: mcpconn.TransportHTTP, URL: cfg.URL, OAuth: h})
	if err != nil {
		fmt.Println("error:", err)
		return 1
	}
	defer c.Release()
	r, err := c.Call(ctx, "whoami", nil)
	if err != nil {
		fmt.Println("error:", err)
		return 1
	}
	fmt.Println(r.Text())
	return 0
}

// world is one test's authorization server, protected MCP server, token
// store and captured logs.
type world struct {
	t     *testing.T
	clock *clock
	as    *authServer
	url   string
	store string
	logs  *syncBuffer
	log   *slog.Logger
}

func newWorld(t *testing.T) *world {
	w := &world{t: t, clock: &clock{}, logs: &syncBuffer{}}
	w.as = newAuthServer(t, w.clock, "docs:read")
	w.url = protectedServer(t, w.as, "docs:read")
	w.store = filepath.Join(t.TempDir(), "state", "toolgen", "oauth")
	w.log = slog.New(slog.NewTextHandler(w.logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	t.Cleanup(w.noSecretsLogged)
	return w
}

func (w *world) config() mcpauth.Config {
	return mcpauth.Config{Server: "docs", Agent: "myagent", URL: w.url, Store: mcpauth.OpenStore(w.store), Logger: w.log}
}

func (w *world) login() string {
	w.t.Helper()
	var out bytes.Buffer
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if err := mcpauth.Login(ctx, w.config(), browse(w.t), &out); err != nil {
		w.t.Fatalf("Login: %v\n%s", err, out.String())
	}
	w.logs.WriteString(out.String()) // checked for secrets with the logs
	return out.String()
}

// handler is what a serving agent makes: New, on this world's clock.
func (w *world) handler() *mcpauth.Handler {
	w.t.Helper()
	h, err := mcpauth.New(w.config())
	if err != nil {
		w.t.Fatal(err)
	}
	mcpauth.SetClock(h, w.clock.Now)
	w.t.Cleanup(func() { h.Close() })
	return h
}

func (w *world) connect(h *mcpauth.Handler) (*mcpconn.Conn, error) {
	m := mcpconn.NewManager(w.log)
	w.t.Cleanup(func() { m.Close() })
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	c, err := m.Acquire(ctx, mcpconn.Config{Name: "docs", Transport: mcpconn.TransportHTTP, URL: w.url, OAuth: h})
	if err == nil {
		w.t.Cleanup(c.Release)
	}
	return c, err
}

func (w *world) call(c *mcpconn.Conn) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	r, err := c.Call(ctx, "whoami", nil)
	return r.Text(), err
}

func (w *world) entry() *mcpauth.Entry {
	w.t.Helper()
	e, err := w.config().Store.Load(mcpauth.Key{ServerURL: w.url, Client: "dynamic"})
	if err != nil || e == nil {
		w.t.Fatalf("stored login: %v, %v", e, err)
	}
	return e
}

// agents runs n agent processes at once on the stored login.
func (w *world) agents(n int) []string {
	w.t.Helper()
	exe, err := os.Executable()
	if err != nil {
		w.t.Fatal(err)
	}
	outs := make([]string, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			cmd := exec.Command(exe, "-test.run=^$")
			cmd.Env = append(os.Environ(), childEnv+"=1", "MCPAUTH_URL="+w.url, "MCPAUTH_STORE="+w.store,
				"MCPAUTH_CLOCK="+w.clock.Offset().String())
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			out, _ := cmd.Output()
			outs[i] = strings.TrimSpace(string(out))
			w.logs.WriteString(stderr.String())
		})
	}
	wg.Wait()
	return outs
}

// noSecretsLogged fails the test when a token, code or client secret the
// authorization server handed out shows up in the logs or login output.
func (w *world) noSecretsLogged() {
	logs := w.logs.String()
	secrets := w.as.Secrets()
	if len(secrets) == 0 {
		w.t.Error("the authorization server handed out nothing: the check proves nothing")
	}
	for _, s := range secrets {
		if strings.Contains(logs, s) {
			w.t.Errorf("secret %.12s… appears in the logs", s)
		}
	}
}

// TestLoginServeRestartExpiryRevoke is the life of a login: log in (the
// browser follows the redirect), serve with the stored token, again in
// another process, past the token's expiry (refreshed once, persisted),
// and after the user revokes it (the live connection's calls and a new
// agent's server say to log in again; a new login heals the live one).
func TestLoginServeRestartExpiryRevoke(t *testing.T) {
	w := newWorld(t)
	out := w.login()
	if !strings.Contains(out, `Logged in to server "docs" (1 tools; scope "`) || !strings.Contains(out, "refreshes them by itself") {
		t.Errorf("login output:\n%s", out)
	}
	if w.as.Count("register") != 1 || w.as.Count("code") != 1 {
		t.Errorf("registrations %d, code exchanges %d; want 1, 1", w.as.Count("register"), w.as.Count("code"))
	}
	checkStoreFiles(t, w.store)
	first := w.entry()
	if first.Token.RefreshToken == "" || first.ClientSecret == "" || first.TokenURL != w.as.Srv.URL+"/token" ||
		!slices.Contains(first.Scopes, "docs:read") || !slices.Contains(first.Scopes, "offline_access") {
		t.Errorf("stored login lacks what a refresh needs: %+v", first)
	}

	c, err := w.connect(w.handler())
	if err != nil {
		t.Fatal(err)
	}
	if got, err := w.call(c); err != nil || got != "user alice" {
		t.Fatalf("whoami = %q, %v", got, err)
	}

	// Restart: another process, same store.
	if outs := w.agents(1); outs[0] != "user alice" {
		t.Fatalf("agent process: %q", outs[0])
	}
	if n := w.as.Count("refresh"); n != 0 {
		t.Errorf("%d refreshes of a valid token", n)
	}

	// Expiry: the server refuses the old token; the agent refreshes first.
	w.clock.Advance(2 * time.Hour)
	if code := status(t, w.url, first.Token.AccessToken); code != http.StatusUnauthorized {
		t.Fatalf("expired token: status %d, want 401", code)
	}
	if got, err := w.call(c); err != nil || got != "user alice" {
		t.Fatalf("whoami after expiry = %q, %v", got, err)
	}
	if n := w.as.Count("refresh"); n != 1 {
		t.Errorf("refreshes after expiry: %d, want 1", n)
	}
	second := w.entry()
	if second.Token.AccessToken == first.Token.AccessToken || second.Token.RefreshToken == first.Token.RefreshToken {
		t.Error("the refreshed token was not stored")
	}
	// A restarted agent uses the refreshed token as stored: no refresh.
	if outs := w.agents(1); outs[0] != "user alice" || w.as.Count("refresh") != 1 {
		t.Fatalf("agent process after refresh: %q, refreshes %d", outs[0], w.as.Count("refresh"))
	}

	// Revocation: the user revokes the login at the authorization server.
	revoke(t, w.as, second.Token.RefreshToken)
	_, err = w.call(c)
	if err == nil || !strings.Contains(err.Error(), "run: myagent login docs") {
		t.Fatalf("call after revocation: %v; want the login hint", err)
	}
	// A new agent: the server is red with the hint.
	m := mcpconn.NewManager(w.log)
	defer m.Close()
	down, err := m.AcquireRetrying(context.Background(), mcpconn.Config{Name: "docs", Transport: mcpconn.TransportHTTP, URL: w.url, OAuth: w.handler()})
	if err != nil {
		t.Fatal(err)
	}
	if down.Health() != mcpconn.HealthRed || down.Err() == nil || !strings.Contains(down.Err().Error(), `server "docs" needs a login`) ||
		!strings.HasSuffix(down.Err().Error(), "run: myagent login docs") {
		t.Errorf("revoked server: health %s, err %v", down.Health(), down.Err())
	}
	down.Release()

	// The user logs in again; the live connection takes the new token.
	w.login()
	if got, err := w.call(c); err != nil || got != "user alice" {
		t.Fatalf("whoami after a new login = %q, %v", got, err)
	}
}

// TestRefreshInBackground: a token in the last quarter of its life is
// still used, and replaced in the background before it expires.
func TestRefreshInBackground(t *testing.T) {
	w := newWorld(t)
	w.login()
	h := w.handler()
	c, err := w.connect(h)
	if err != nil {
		t.Fatal(err)
	}
	before := w.entry().Token.AccessToken
	w.clock.Advance(50 * time.Minute) // 10 of 60 minutes left
	if _, err := w.call(c); err != nil {
		t.Fatal(err)
	}
	mcpauth.WaitBackground(h)
	if n := w.as.Count("refresh"); n != 1 {
		t.Fatalf("background refreshes: %d, want 1", n)
	}
	after := w.entry().Token.AccessToken
	if after == before {
		t.Fatal("the background refresh stored nothing")
	}
	verified := w.as.Count("verified")
	if _, err := w.call(c); err != nil {
		t.Fatal(err)
	}
	if w.as.Count("verified") != verified+1 || status(t, w.url, before) != http.StatusOK {
		t.Error("the next call did not go through") // the old token is not revoked, only replaced
	}
	if w.as.Count("refresh") != 1 {
		t.Errorf("refreshes: %d, want still 1", w.as.Count("refresh"))
	}
}

// TestProcessesRefreshOnce: agent processes sharing a login whose token
// expired refresh it once between them. The authorization server rotates
// refresh tokens, so a second refresh with the same token would be refused
// and that agent would ask for a login: the store's lock prevents it.
func TestProcessesRefreshOnce(t *testing.T) {
	w := newWorld(t)
	w.login()
	w.clock.Advance(2 * time.Hour)
	for i, out := range w.agents(4) {
		if out != "user alice" {
			t.Errorf("agent %d: %q", i, out)
		}
	}
	if n := w.as.Count("refresh"); n != 1 {
		t.Errorf("refreshes: %d, want 1", n)
	}
}

// TestRevokedAccessTokenRefreshes: a server refusing a token that has not
// expired (the access token alone was revoked) gets a refreshed one, once.
func TestRevokedAccessTokenRefreshes(t *testing.T) {
	w := newWorld(t)
	w.login()
	c, err := w.connect(w.handler())
	if err != nil {
		t.Fatal(err)
	}
	revoke(t, w.as, w.entry().Token.AccessToken)
	if got, err := w.call(c); err != nil || got != "user alice" {
		t.Fatalf("whoami after the access token was revoked = %q, %v", got, err)
	}
	if n := w.as.Count("refresh"); n != 1 {
		t.Errorf("refreshes: %d, want 1", n)
	}
}

// TestNotLoggedIn: serving without a login fails at once with the hint,
// and never sends the server a request without a token.
func TestNotLoggedIn(t *testing.T) {
	w := newWorld(t)
	h := w.handler()
	_, err := w.connect(h)
	if err == nil || !strings.Contains(err.Error(), `server "docs" needs a login (not logged in); run: myagent login docs`) {
		t.Fatalf("Acquire without a login: %v", err)
	}
	if w.as.Count("register")+w.as.Count("code") != 0 {
		t.Error("serving started a login")
	}
	if need, err := mcpauth.NeedsLogin(w.config()); !need || err != nil {
		t.Errorf("NeedsLogin before the login = %v, %v", need, err)
	}
	// The user logs in; the running agent takes the login at its next
	// attempt, without a restart.
	w.login()
	if need, err := mcpauth.NeedsLogin(w.config()); need || err != nil {
		t.Errorf("NeedsLogin after the login = %v, %v", need, err)
	}
	c, err := w.connect(h)
	if err != nil {
		t.Fatalf("after the login: %v", err)
	}
	if got, err := w.call(c); err != nil || got != "user alice" {
		t.Fatalf("whoami = %q, %v", got, err)
	}
	// Logout: the next agent is not logged in.
	if had, err := mcpauth.Logout(w.config()); !had || err != nil {
		t.Fatalf("Logout = %v, %v", had, err)
	}
	if _, err := w.connect(w.handler()); err == nil || !strings.Contains(err.Error(), "not logged in") {
		t.Errorf("after logout: %v", err)
	}
	if had, _ := mcpauth.Logout(w.config()); had {
		t.Error("a second logout found a login")
	}
}

// TestLoginSSE: the sse transport gets the same login through
// mcpconn's OAuth round tripper.
func TestLoginSSE(t *testing.T) {
	w := newWorld(t)
	cfg := w.config()
	cfg.URL = strings.TrimSuffix(w.url, "/mcp") + "/sse"
	cfg.Transport = "sse"
	var out bytes.Buffer
	if err := mcpauth.Login(context.Background(), cfg, browse(t), &out); err != nil {
		t.Fatalf("Login: %v\n%s", err, &out)
	}
	h, err := mcpauth.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	m := mcpconn.NewManager(w.log)
	defer m.Close()
	c, err := m.Acquire(context.Background(), mcpconn.Config{Name: "docs", Transport: mcpconn.TransportSSE, URL: cfg.URL, OAuth: h})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Release()
	// The handler behind RequireBearerToken ran: the token was taken.
	if got, err := w.call(c); err != nil || !strings.HasPrefix(got, "user ") {
		t.Fatalf("whoami over sse = %q, %v", got, err)
	}
}

// checkStoreFiles: the directory is 0700, entries 0600, no temporary file
// left behind.
func checkStoreFiles(t *testing.T, dir string) {
	t.Helper()
	fi, err := os.Stat(dir)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o700 {
		t.Errorf("store directory mode %v, want 0700", fi.Mode().Perm())
	}
	jsons := 0
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		info, _ := d.Info()
		if info.Mode().Perm() != 0o600 {
			t.Errorf("%s: mode %v, want 0600", d.Name(), info.Mode().Perm())
		}
		switch {
		case strings.HasSuffix(p, ".json"):
			jsons++
			var e mcpauth.Entry
			if b, _ := os.ReadFile(p); json.Unmarshal(b, &e) != nil {
				t.Errorf("%s is not an entry", d.Name())
			}
		case strings.HasSuffix(p, ".lock"):
		default:
			t.Errorf("stray file %s in the store", d.Name())
		}
		return nil
	})
	if jsons != 1 {
		t.Errorf("%d entries, want 1", jsons)
	}
}

// status is what the MCP server answers a tools/list carrying token.
func status(t *testing.T, serverURL, token string) int {
	t.Helper()
	req, _ := http.NewRequest("POST", serverURL, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`))
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode == http.StatusBadRequest { // no session, but past authentication
		return http.StatusOK
	}
	return resp.StatusCode
}

// revoke asks the authorization server to revoke a token (RFC 7009), as a
// user does on the provider's "connected apps" page.
func revoke(t *testing.T, as *authServer, token string) {
	t.Helper()
	resp, err := http.PostForm(as.Srv.URL+"/revoke", url.Values{"token": {token}})
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
}

type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) WriteString(x string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.b.WriteString(x)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}
