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
	"sync"

	"github.com/modelcontextprotocol/go-sdk/auth"

	"github.com/toolgen-dev/toolgen/internal/mcpauth"
	"github.com/toolgen-dev/toolgen/internal/oauthlink"
	"github.com/toolgen-dev/toolgen/runtime/store"
)

func init() { oauthlink.Register(client{}) }

// client is internal/mcpauth behind oauthlink.Client.
type client struct{}

func config(srv oauthlink.Server) (mcpauth.Config, []string, error) {
	cfg, secrets, ok, err := mcpauth.FromDecl(srv.Decl, srv.URL, srv.Getenv)
	if err != nil {
		return mcpauth.Config{}, nil, err
	}
	if !ok {
		return mcpauth.Config{}, nil, errors.New("server " + srv.Decl.Name + " has no auth block")
	}
	cfg.Logger = srv.Log
	if srv.Shared != nil {
		cfg.Tokens = sharedTokens(srv.Shared, srv.Getenv)
	}
	return cfg, secrets, nil
}

// tokenStores are the token stores of the shared stores, one per store,
// so that mcpauth.Shared finds one handler per server for the process
// (the handler's cache key holds its token store).
var tokenStores sync.Map // store.Store → mcpauth.TokenStore

func sharedTokens(st store.Store, getenv func(string) (string, bool)) mcpauth.TokenStore {
	if ts, ok := tokenStores.Load(st); ok {
		return ts.(mcpauth.TokenStore)
	}
	ts, _ := tokenStores.LoadOrStore(st, mcpauth.SharedTokens(st, getenv))
	return ts.(mcpauth.TokenStore)
}

func (client) Handler(srv oauthlink.Server) (auth.OAuthHandler, []string, error) {
	cfg, secrets, err := config(srv)
	if err != nil {
		return nil, nil, err
	}
	h, err := mcpauth.Shared(cfg)
	if err != nil {
		return nil, nil, err
	}
	return h, secrets, nil
}

func (client) Login(ctx context.Context, srv oauthlink.Server, noBrowser bool, out io.Writer) error {
	cfg, _, err := config(srv)
	if err != nil {
		return err
	}
	open := mcpauth.SystemBrowser
	if noBrowser {
		open = func(string) error { return errors.New("--no-browser") }
	}
	return mcpauth.Login(ctx, cfg, open, out)
}

func (client) Logout(srv oauthlink.Server) (bool, error) {
	cfg, _, err := config(srv)
	if err != nil {
		return false, err
	}
	return mcpauth.Logout(cfg)
}
