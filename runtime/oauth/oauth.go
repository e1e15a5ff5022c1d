// Package oauth links the OAuth client into an agent: connections to
// servers with an auth block (authorization code with `AGENT login
// SERVER`, client credentials, enterprise-managed authorization) and the
// stored logins. Importing it is enough; the generated registry does when
// a server of its spec declares auth:
//
//	import _ "github.com/toolgen-dev/toolgen/runtime/oauth"
//
// Without it an agent links no OAuth client, and a server with an auth
// block fails to connect with an error saying to import this package.
package oauth

import (
	"context"
	"errors"
	"io"
	"log/slog"

	"github.com/modelcontextprotocol/go-sdk/auth"

	"github.com/toolgen-dev/toolgen/internal/mcpauth"
	"github.com/toolgen-dev/toolgen/internal/oauthlink"
	"github.com/toolgen-dev/toolgen/runtime/decl"
)

func init() { oauthlink.Register(client{}) }

// client is internal/mcpauth behind oauthlink.Client.
type client struct{}

func config(srv *decl.Server, url string, getenv func(string) (string, bool), log *slog.Logger) (mcpauth.Config, []string, error) {
	cfg, secrets, ok, err := mcpauth.FromDecl(srv, url, getenv)
	if err != nil {
		return mcpauth.Config{}, nil, err
	}
	if !ok {
		return mcpauth.Config{}, nil, errors.New("server " + srv.Name + " has no auth block")
	}
	cfg.Logger = log
	return cfg, secrets, nil
}

func (client) Handler(srv *decl.Server, url string, getenv func(string) (string, bool), log *slog.Logger) (auth.OAuthHandler, []string, error) {
	cfg, secrets, err := config(srv, url, getenv, log)
	if err != nil {
		return nil, nil, err
	}
	h, err := mcpauth.Shared(cfg)
	if err != nil {
		return nil, nil, err
	}
	return h, secrets, nil
}

func (client) Login(ctx context.Context, srv *decl.Server, url string, getenv func(string) (string, bool), log *slog.Logger, noBrowser bool, out io.Writer) error {
	cfg, _, err := config(srv, url, getenv, log)
	if err != nil {
		return err
	}
	open := mcpauth.SystemBrowser
	if noBrowser {
		open = func(string) error { return errors.New("--no-browser") }
	}
	return mcpauth.Login(ctx, cfg, open, out)
}

func (client) Logout(srv *decl.Server, url string, getenv func(string) (string, bool), log *slog.Logger) (bool, error) {
	cfg, _, err := config(srv, url, getenv, log)
	if err != nil {
		return false, err
	}
	return mcpauth.Logout(cfg)
}
