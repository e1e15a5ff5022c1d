package agentcli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/toolgen-dev/toolgen/internal/mcpauth"
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
	cfg, code, ok := c.serverAuth(fs, args)
	if !ok {
		return code
	}
	open := mcpauth.SystemBrowser
	if *noBrowser {
		open = func(string) error { return errors.New("--no-browser") }
	}
	ctx, cancel := context.WithTimeout(c.ctx, loginTimeout)
	defer cancel()
	if err := mcpauth.Login(ctx, cfg, open, c.stderr); err != nil {
		return c.fail(exitFail, err)
	}
	return exitOK
}

// logout forgets a server's stored login.
func (c *cli) logout(args []string) int {
	fs := c.flags("logout")
	cfg, code, ok := c.serverAuth(fs, args)
	if !ok {
		return code
	}
	had, err := mcpauth.Logout(cfg)
	if err != nil {
		return c.fail(exitFail, err)
	}
	if had {
		fmt.Fprintf(c.stderr, "Logged out of server %q (the tokens stay valid at the authorization server until they expire or are revoked there).\n", cfg.Server)
	} else {
		fmt.Fprintf(c.stderr, "Server %q had no stored login.\n", cfg.Server)
	}
	return exitOK
}

// serverAuth parses a command line of one SERVER and returns its OAuth
// config; false: stop with the exit code.
func (c *cli) serverAuth(fs *flag.FlagSet, args []string) (mcpauth.Config, int, bool) {
	shared := fs.String("store", "", "keep the login in the store replicas share at `URL` (default $"+store.EnvURL+"), sealed with $"+store.EnvKey)
	pos, err := parse(fs, args)
	if err != nil {
		return mcpauth.Config{}, parseExit(err), false
	}
	if len(pos) != 1 {
		return mcpauth.Config{}, c.usageErr(fs, "want one SERVER"), false
	}
	cfg, err := c.authConfig(pos[0])
	if err != nil {
		return mcpauth.Config{}, c.fail(exitFail, err), false
	}
	st, err := c.openStore(storeFlags{url: shared}, c.logger(slog.LevelWarn))
	if err != nil {
		return mcpauth.Config{}, c.fail(exitFail, err), false
	}
	if st != nil { // open until the command ends: it is one process's only use
		cfg.Tokens = mcpauth.SharedTokens(st, c.opts.Getenv)
	}
	return cfg, exitOK, true
}

// authConfig is the OAuth config of the named server, env() read now.
func (c *cli) authConfig(name string) (mcpauth.Config, error) {
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
		return mcpauth.Config{}, fmt.Errorf("unknown server %q: no server of this agent has an auth block", name)
	case srv == nil:
		return mcpauth.Config{}, fmt.Errorf("unknown server %q%s (servers with auth: %s)", name, didYouMean(name, with), strings.Join(with, ", "))
	case srv.Auth == nil:
		return mcpauth.Config{}, fmt.Errorf("server %q has no auth block: there is nothing to log in to", name)
	}
	url, err := srv.URL.Resolve(c.opts.Getenv)
	if err != nil {
		return mcpauth.Config{}, fmt.Errorf("server %q: url: %w", name, err)
	}
	cfg, _, _, err := mcpauth.FromDecl(srv, url, c.opts.Getenv)
	cfg.Logger = c.logger(slog.LevelInfo) // the auth.* events on stderr, as every command's
	return cfg, err
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
