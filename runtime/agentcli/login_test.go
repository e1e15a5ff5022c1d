package agentcli_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/toolgen-dev/toolgen/internal/mcpauth/authtest"
)

// oauthWorld is an OAuth-protected MCP server (docs, tool whoami) with its
// authorization server on loopback, and the agent binary's environment
// for it: its own token store.
type oauthWorld struct {
	t     *testing.T
	as    *authtest.Server
	url   string
	env   []string
	state string
	logs  bytes.Buffer // every stderr the agent wrote
	mu    sync.Mutex
}

func newOAuthWorld(t *testing.T) *oauthWorld {
	w := &oauthWorld{t: t, as: authtest.NewServer(t, &authtest.Clock{}, "docs:read"), state: t.TempDir()}
	w.url = authtest.Protected(t, w.as, "docs:read")
	w.env = append(slicesClone(agentEnv), "TESTAGENT_OAUTH_URL="+w.url, "XDG_STATE_HOME="+w.state)
	return w
}

func slicesClone(s []string) []string { return append([]string(nil), s...) }

func (w *oauthWorld) log(s string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.logs.WriteString(s)
}

// run runs the agent binary to its end.
func (w *oauthWorld) run(args ...string) outcome {
	w.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, agentBin, args...)
	cmd.Dir, cmd.Env = repoRoot, w.env
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	w.log(errb.String() + out.String())
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		w.t.Fatalf("run %v: %v", args, err)
	}
	return outcome{code, out.String(), errb.String()}
}

var authURLRe = regexp.MustCompile(`http://127\.0\.0\.1:\d+/authorize\?\S+`)

// login runs `agent login --no-browser docs` and plays the user: it opens
// the URL the agent prints, the authorization server approves and
// redirects to the agent's loopback listener.
func (w *oauthWorld) login() string {
	w.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, agentBin, "login", "--no-browser", "docs")
	cmd.Dir, cmd.Env = repoRoot, w.env
	stderr, err := cmd.StderrPipe()
	if err != nil {
		w.t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		w.t.Fatal(err)
	}
	var all strings.Builder
	sc := bufio.NewScanner(stderr)
	opened := false
	for sc.Scan() {
		line := sc.Text()
		all.WriteString(line + "\n")
		if u := authURLRe.FindString(line); u != "" && !opened {
			opened = true
			go func() {
				resp, err := http.Get(u)
				if err == nil {
					io.Copy(io.Discard, resp.Body)
					resp.Body.Close()
				}
			}()
		}
	}
	err = cmd.Wait()
	w.log(all.String())
	if err != nil || !opened {
		w.t.Fatalf("login: %v (URL seen: %v)\n%s", err, opened, all.String())
	}
	return all.String()
}

// entry is the stored login (the token file's JSON).
func (w *oauthWorld) entry() (path string, e struct {
	Token struct {
		AccessToken  string `json:"access_token"`
		RefreshToken string `json:"refresh_token"`
	} `json:"token"`
}) {
	w.t.Helper()
	files, _ := filepath.Glob(filepath.Join(w.state, "*", "*", "*.json"))
	if len(files) == 0 {
		files, _ = filepath.Glob(filepath.Join(w.state, "*", "*.json"))
	}
	if len(files) != 1 {
		w.t.Fatalf("want one stored login under %s, got %v", w.state, files)
	}
	b, err := os.ReadFile(files[0])
	if err != nil {
		w.t.Fatal(err)
	}
	if err := json.Unmarshal(b, &e); err != nil {
		w.t.Fatal(err)
	}
	return files[0], e
}

func (w *oauthWorld) revoke(token string) {
	w.t.Helper()
	resp, err := http.PostForm(w.as.Srv.URL+"/revoke", url.Values{"token": {token}})
	if err != nil {
		w.t.Fatal(err)
	}
	resp.Body.Close()
}

// noSecretsLogged checks that no value the authorization server issued
// (tokens, codes, client secrets) ever reached the agent's output.
func (w *oauthWorld) noSecretsLogged() {
	w.t.Helper()
	w.mu.Lock()
	logs := w.logs.String()
	w.mu.Unlock()
	for _, s := range w.as.Secrets() {
		if strings.Contains(logs, s) {
			w.t.Errorf("a secret the authorization server issued (%.12s…) is in the agent's output", s)
		}
	}
}

const whoami = `docs__whoami`

// TestLoginCallRestartExpiryRevoke drives the built agent binary: without
// a login the server needs one (and says what to run); `login` stores a
// token (mode 0600); every later process uses it (a restart); an expired
// token is refreshed; a revoked login fails with the login hint again.
func TestLoginCallRestartExpiryRevoke(t *testing.T) {
	w := newOAuthWorld(t)

	o := w.run("call", "--agent", "reader", whoami, `{}`)
	if !strings.Contains(o.stdout+o.stderr, "run: ") || !strings.Contains(o.stdout+o.stderr, "login docs") {
		t.Fatalf("before login: want the login hint\nstdout:\n%s\nstderr:\n%s", o.stdout, o.stderr)
	}

	w.as.TTL.Store(int64(time.Second)) // every token is stale at once: each use refreshes
	out := w.login()
	if !strings.Contains(out, `Logged in to server "docs"`) {
		t.Fatalf("login output:\n%s", out)
	}
	path, e := w.entry()
	if fi, err := os.Stat(path); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("token file %s: mode %v, %v; want 0600", path, fi.Mode().Perm(), err)
	}
	if e.Token.RefreshToken == "" {
		t.Fatal("no refresh token stored")
	}

	refreshes := w.as.Count("refresh")
	for i := range 2 { // two processes: a restart keeps working
		o = w.run("call", "--agent", "reader", whoami, `{}`)
		o.want(t, 0)
		if !strings.Contains(o.stdout, "user alice") {
			t.Fatalf("call %d: %s\n%s", i, o.stdout, o.stderr)
		}
	}
	if w.as.Count("refresh") <= refreshes {
		t.Errorf("expired tokens were not refreshed (refreshes %d → %d)", refreshes, w.as.Count("refresh"))
	}

	_, e = w.entry()
	w.revoke(e.Token.RefreshToken)
	w.revoke(e.Token.AccessToken)
	o = w.run("call", "--agent", "reader", whoami, `{}`)
	if o.code == 0 && !strings.Contains(o.stdout, "login docs") {
		t.Fatalf("after revoke: want a failure with the login hint\nstdout:\n%s\nstderr:\n%s", o.stdout, o.stderr)
	}
	if !strings.Contains(o.stdout+o.stderr, "login docs") {
		t.Fatalf("after revoke: no login hint\nstdout:\n%s\nstderr:\n%s", o.stdout, o.stderr)
	}
	w.noSecretsLogged()
}
