package cmd

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/toolgen-dev/toolgen/hcl/ir"
	"github.com/toolgen-dev/toolgen/internal/mcpauth"
	"github.com/toolgen-dev/toolgen/templates"
)

// lockLogins is `toolgen lock --login`: the agent binary's `login SERVER`
// for every server with an auth block and no stored login, one after the
// other (each may need the browser). The tokens land in the same per-user
// store the agents read.
func lockLogins(ctx context.Context, spec *ir.Spec, getenv func(string) (string, bool), open func(url string) error, out io.Writer) error {
	for _, srv := range spec.Servers {
		if srv.Auth == nil {
			continue
		}
		rs := templates.RuntimeServer(srv)
		url, err := rs.URL.Resolve(getenv)
		if err != nil {
			return fmt.Errorf("server %q: url: %w", srv.Name, err)
		}
		cfg, _, _, err := mcpauth.FromDecl(&rs, url, getenv)
		if err != nil {
			return err
		}
		need, err := mcpauth.NeedsLogin(cfg)
		if err != nil {
			return err
		}
		if !need {
			continue
		}
		lctx, cancel := context.WithTimeout(ctx, 10*time.Minute)
		err = mcpauth.Login(lctx, cfg, open, out)
		cancel()
		if err != nil {
			return err
		}
	}
	return nil
}
