package runtime

import (
	"log/slog"

	"github.com/toolgen-dev/toolgen/internal/mcpauth"
	"github.com/toolgen-dev/toolgen/internal/mcpconn"
	"github.com/toolgen-dev/toolgen/runtime/decl"
)

// serverOAuth gives an http or sse server with an auth block its OAuth
// handler: the process's one for that server, using the tokens `AGENT
// login SERVER` stored (never starting a login itself). Without a stored
// login, or with one revoked, connecting fails with "run: AGENT login
// SERVER" and the server stays red, retried in the background, until a
// login in another process stores a token.
func serverOAuth(srv *decl.Server, cfg *mcpconn.Config, getenv func(string) (string, bool), log *slog.Logger) error {
	acfg, secrets, ok, err := mcpauth.FromDecl(srv, cfg.URL, getenv)
	if !ok || err != nil {
		return err
	}
	acfg.Logger = log // auth.refresh and auth.refresh_failed, with the server's other events
	cfg.Redact = append(cfg.Redact, secrets...)
	h, err := mcpauth.Shared(acfg)
	if err != nil {
		return err
	}
	cfg.OAuth = h
	return nil
}
