package agentcli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/toolgen-dev/toolgen/internal/oauthlink"
	"github.com/toolgen-dev/toolgen/internal/serveauth"
	"github.com/toolgen-dev/toolgen/runtime/decl"
	"github.com/toolgen-dev/toolgen/runtime/store"
)

// loginTimeout bounds a login: long enough for a user at a browser.
const loginTimeout = 10 * time.Minute

// login runs the OAuth login of one server with a user at hand and stores
// its tokens for serve, call and the others.
func (c *cli) login(args []string) int {
	fs := c.flags("login")
	noBrowser := fs.Bool("no-browser", false, "only print the URL to open")
	a, code, ok := c.serverAuth(fs, args)
	if !ok {
		return code
	}
	ctx, cancel := context.WithTimeout(c.ctx, loginTimeout)
	defer cancel()
	if err := a.client.Login(ctx, a.srv, *noBrowser, c.stderr); err != nil {
		return c.fail(exitFail, err)
	}
	return exitOK
}

// logout forgets a server's stored login.
func (c *cli) logout(args []string) int {
	fs := c.flags("logout")
	a, code, ok := c.serverAuth(fs, args)
	if !ok {
		return code
	}
	had, err := a.client.Logout(a.srv)
	if err != nil {
		return c.fail(exitFail, err)
	}
	if had {
		fmt.Fprintf(c.stderr, "Logged out of server %q (the tokens stay valid at the authorization server until they expire or are revoked there).\n", a.srv.Decl.Name)
	} else {
		fmt.Fprintf(c.stderr, "Server %q had no stored login.\n", a.srv.Decl.Name)
	}
	return exitOK
}

// serverLogin is what login and logout need of one server with auth.
type serverLogin struct {
	client oauthlink.Client
	srv    oauthlink.Server
}

// serverAuth parses a command line of one SERVER and returns its OAuth
// login; false: stop with the exit code.
func (c *cli) serverAuth(fs *flag.FlagSet, args []string) (serverLogin, int, bool) {
	shared := fs.String("store", "", "keep the login in the store replicas share at `URL` (default $"+store.EnvURL+"), sealed with $"+store.EnvKey)
	pos, err := parse(fs, args)
	if err != nil {
		return serverLogin{}, parseExit(err), false
	}
	if len(pos) != 1 {
		return serverLogin{}, c.usageErr(fs, "want one SERVER"), false
	}
	a, err := c.authConfig(pos[0])
	if err != nil {
		return serverLogin{}, c.fail(exitFail, err), false
	}
	// Open until the command ends: it is this process's only use.
	if a.srv.Shared, err = c.openStore(storeFlags{url: shared}, c.logger(slog.LevelWarn)); err != nil {
		return serverLogin{}, c.fail(exitFail, err), false
	}
	return a, exitOK, true
}

// authConfig is the named server's OAuth login, env() read at login.
func (c *cli) authConfig(name string) (serverLogin, error) {
	var with []string
	var srv *decl.Server
	for i := range c.reg.Servers {
		s := &c.reg.Servers[i]
		if s.Auth != nil {
			with = append(with, s.Name)
		}
		if s.Name == name {
			srv = s
		}
	}
	switch {
	case srv == nil && len(with) == 0:
		return serverLogin{}, fmt.Errorf("unknown server %q: no server of this agent has an auth block", name)
	case srv == nil:
		return serverLogin{}, fmt.Errorf("unknown server %q%s (servers with auth: %s)", name, didYouMean(name, with), strings.Join(with, ", "))
	case srv.Auth == nil:
		return serverLogin{}, fmt.Errorf("server %q has no auth block: there is nothing to log in to", name)
	}
	client, ok := oauthlink.Linked()
	if !ok {
		return serverLogin{}, oauthlink.NotLinked(name)
	}
	url, err := srv.URL.Resolve(c.opts.Getenv)
	if err != nil {
		return serverLogin{}, fmt.Errorf("server %q: url: %w", name, err)
	}
	// The auth.* events on stderr, as every command's.
	return serverLogin{client: client, srv: oauthlink.Server{Decl: srv, URL: url, Getenv: c.opts.Getenv, Log: c.logger(slog.LevelInfo)}}, nil
}

// serveAuthFlags are serve --http's authentication flags.
type serveAuthFlags struct {
	tokenEnv, issuer, audience, jwks *string
	scopes                           *string
	anyTyp                           *bool
}

func addServeAuthFlags(fs *flag.FlagSet) serveAuthFlags {
	return serveAuthFlags{
		tokenEnv: fs.String("auth-token-env", "", "--http: require `Authorization: Bearer` with the value of environment variable NAME"),
		issuer:   fs.String("auth-issuer", "", "--http: accept OAuth access tokens (JWT) of the authorization server at `URL` (its JWKS)"),
		audience: fs.String("auth-audience", "", "--http with --auth-issuer: this server's `URL` as clients reach it (the tokens' audience)"),
		jwks:     fs.String("auth-jwks", "", "--http with --auth-issuer: the issuer's key set `URL` (default: from its metadata)"),
		scopes:   fs.String("auth-scopes", "", "--http with --auth-issuer: space-separated `SCOPES` every token must carry"),
		anyTyp:   fs.Bool("auth-any-typ", false, "--http with --auth-issuer: accept JWTs whatever their typ header (default: only at+jwt access tokens, RFC 9068)"),
	}
}

func (f serveAuthFlags) set() bool {
	return *f.tokenEnv != "" || *f.issuer != "" || *f.audience != "" || *f.jwks != "" || *f.scopes != "" || *f.anyTyp
}

// serveAuth builds serve --http's authentication from its flags, or nil
// when none is given.
func (c *cli) serveAuth(f serveAuthFlags, agent string, log *slog.Logger) (*serveauth.Auth, error) {
	if !f.set() {
		return nil, nil
	}
	cfg := serveauth.Config{Issuer: *f.issuer, Audience: *f.audience, JWKSURL: *f.jwks, Scopes: strings.Fields(*f.scopes),
		AnyTokenType: *f.anyTyp, ResourceName: agent, Logger: log}
	if *f.tokenEnv != "" {
		v, ok := c.opts.Getenv(*f.tokenEnv)
		if !ok || v == "" {
			return nil, fmt.Errorf("serve --auth-token-env %s: the variable is not set", *f.tokenEnv)
		}
		if strings.TrimSpace(v) == "" {
			return nil, fmt.Errorf("serve --auth-token-env %s: the variable is blank (only whitespace); set it to a random token (openssl rand -hex 32)", *f.tokenEnv)
		}
		cfg.Token, cfg.TokenName = v, *f.tokenEnv
	}
	if cfg.Issuer == "" && (cfg.Audience != "" || cfg.JWKSURL != "" || len(cfg.Scopes) > 0 || cfg.AnyTokenType) {
		return nil, errors.New("serve: --auth-audience, --auth-jwks, --auth-scopes and --auth-any-typ go with --auth-issuer")
	}
	ctx, cancel := context.WithTimeout(c.ctx, 30*time.Second)
	defer cancel()
	return serveauth.New(ctx, cfg)
}
