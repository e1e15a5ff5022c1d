package mcpauth

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolgen-dev/toolgen/internal/mcpconn"
)

// Login logs the agent in to one server with a user at hand and stores the
// tokens: it listens on the loopback redirect URI, connects to the server
// as serving would (initialize, tools/list), and when the server asks for
// authorization shows the user the authorization server's page
// (openBrowser, and the URL printed on out in any case), waits for the
// redirect, exchanges the code and keeps the tokens. A login replaces the
// stored one. Mode client_credentials needs no user: Login checks that the
// credentials work and stores nothing. ctx bounds the whole login.
func Login(ctx context.Context, cfg Config, openBrowser func(url string) error, out io.Writer) error {
	if err := cfg.check(); err != nil {
		return err
	}
	if out == nil {
		out = io.Discard
	}
	var b *browser
	if cfg.mode() == ModeOAuth || cfg.mode() == ModeEnterprise && cfg.IDToken == "" {
		var err error
		if b, err = listenRedirect(cfg.RedirectURI, cfg.Server, openBrowser, out); err != nil {
			return err
		}
	}
	h, err := newHandler(cfg, b, true)
	if err != nil {
		if b != nil {
			b.close()
		}
		return err
	}
	defer h.Close()
	tools, err := h.probe(ctx)
	if err != nil {
		return fmt.Errorf("login to server %q: %w", cfg.Server, h.sec.scrub(err))
	}
	h.mu.Lock()
	authorized, e := h.authorized, h.entry
	h.mu.Unlock()
	switch {
	case !authorized:
		fmt.Fprintf(out, "Server %q did not ask for authorization (%d tools): nothing stored.\n", cfg.Server, tools)
	case h.store == nil:
		fmt.Fprintf(out, "Server %q accepted the agent's credentials (%d tools; scope %q). Nothing is stored: the agent gets its own tokens when it runs.\n",
			cfg.Server, tools, strings.Join(e.Scopes, " "))
	default:
		fmt.Fprintf(out, "Logged in to server %q (%d tools; scope %q). Tokens stored in %s", cfg.Server, tools, strings.Join(e.Scopes, " "), h.store.Dir())
		switch {
		case e.Token.RefreshToken != "" || e.IDP != nil && e.IDP.RefreshToken != "":
			fmt.Fprintf(out, "; the agent refreshes them by itself.\n")
		case !e.Token.Expiry.IsZero():
			fmt.Fprintf(out, "; no refresh token: log in again after %s.\n", e.Token.Expiry.Local().Format(time.DateTime))
		default:
			fmt.Fprintln(out, ".")
		}
	}
	return nil
}

// probe connects to the server through the handler and lists its tools.
func (h *Handler) probe(ctx context.Context) (int, error) {
	client := mcp.NewClient(&mcp.Implementation{Name: "toolgen-login", Version: "1"}, nil)
	var t mcp.Transport
	if h.cfg.Transport == "sse" {
		t = &mcp.SSEClientTransport{Endpoint: h.cfg.URL, HTTPClient: &http.Client{Transport: mcpconn.OAuthTransport(h, h.cfg.URL, h.cfg.httpClient().Transport)}}
	} else {
		t = &mcp.StreamableClientTransport{Endpoint: h.cfg.URL, HTTPClient: h.cfg.HTTPClient, OAuthHandler: h, MaxRetries: 1}
	}
	cs, err := client.Connect(ctx, t, nil)
	if err != nil {
		return 0, err
	}
	defer cs.Close()
	n := 0
	for _, err := range cs.Tools(ctx, nil) {
		if err != nil {
			return n, fmt.Errorf("tools/list: %w", err)
		}
		n++
	}
	return n, nil
}

// SystemBrowser opens url in the user's browser (xdg-open, open or
// rundll32; no shell), for Login's openBrowser. Without a graphical
// session it fails, and Login's printed URL is the way.
func SystemBrowser(url string) error {
	var cmd *exec.Cmd
	switch runtime.GOOS {
	case "darwin":
		cmd = exec.Command("open", url)
	case "windows":
		cmd = exec.Command("rundll32", "url.dll,FileProtocolHandler", url)
	default:
		if os.Getenv("DISPLAY") == "" && os.Getenv("WAYLAND_DISPLAY") == "" {
			return errors.New("no graphical session")
		}
		cmd = exec.Command("xdg-open", url)
	}
	if err := cmd.Start(); err != nil {
		return err
	}
	go cmd.Wait() // the opener exits at once; the browser is not its child to wait for
	return nil
}

// Logout forgets the stored login of cfg's server (the tokens stay valid
// at the authorization server until they expire or the user revokes them
// there). It reports whether there was one.
func Logout(cfg Config) (bool, error) {
	s, err := cfg.store()
	if err != nil {
		return false, err
	}
	k := cfg.key()
	unlock, err := s.Lock(k)
	if err != nil {
		return false, err
	}
	defer unlock()
	e, err := s.Load(k)
	if err != nil || e == nil {
		return false, err
	}
	return true, s.Delete(k)
}

// NeedsLogin reports whether serving cfg's server needs a user to run
// Login first: a mode with a user and no stored login. (mcpconn reports a
// failed connection as text, so a caller such as `toolgen lock --login`
// asks here rather than matching errors.)
func NeedsLogin(cfg Config) (bool, error) {
	if cfg.mode() == ModeClientCredentials || cfg.mode() == ModeEnterprise && cfg.IDToken != "" {
		return false, nil
	}
	s, err := cfg.store()
	if err != nil {
		return false, err
	}
	e, err := s.Load(cfg.key())
	return e == nil, err
}
