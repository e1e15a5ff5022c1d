// Package oauthlink is where the OAuth client registers itself with the
// runtime, as a database/sql driver does: the runtime and agentcli ask
// for the client here, so an agent whose spec declares no auth block
// links neither the client nor what it needs (x/oauth2's client
// credentials, go-jose, the token store). runtime/oauth registers it; the
// generated registry imports that package when a server declares auth.
package oauthlink

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/auth"

	"github.com/toolgen-dev/toolgen/runtime/decl"
	"github.com/toolgen-dev/toolgen/runtime/store"
)

// Package is the import path that links the OAuth client.
const Package = "github.com/toolgen-dev/toolgen/runtime/oauth"

// ErrNotLinked: a server declares auth and the OAuth client is not linked.
var ErrNotLinked = errors.New("the OAuth client is not linked")

// Server is one server with an auth block, as the OAuth client needs it.
type Server struct {
	Decl   *decl.Server
	URL    string                      // the resolved URL
	Getenv func(string) (string, bool) // reads its env() values now
	Log    *slog.Logger                // auth.* events
	Shared store.Store                 // the fleet's store for its login (sealed there); nil: the user's files
}

// Client is the OAuth client of servers with an auth block.
type Client interface {
	// Handler is the process's one handler of srv, using the login that
	// `AGENT login SERVER` stored; secrets are the env() values it read,
	// for the caller's redactor.
	Handler(srv Server) (h auth.OAuthHandler, secrets []string, err error)
	// Login runs srv's login with a user at hand (a browser unless
	// noBrowser: then only the URL is printed to out) and stores the tokens.
	Login(ctx context.Context, srv Server, noBrowser bool, out io.Writer) error
	// Logout forgets srv's stored login; false: there was none.
	Logout(srv Server) (bool, error)
}

var linked struct {
	sync.RWMutex
	c Client
}

// Register links c; runtime/oauth calls it from init.
func Register(c Client) {
	linked.Lock()
	defer linked.Unlock()
	linked.c = c
}

// Linked is the registered client, if any.
func Linked() (Client, bool) {
	linked.RLock()
	defer linked.RUnlock()
	return linked.c, linked.c != nil
}

// NotLinked is the error for server, which declares auth, in a binary
// without the OAuth client: it says what to regenerate or import.
func NotLinked(server string) error {
	return fmt.Errorf("server %q has an auth block: %w into this agent; regenerate its registry with this toolgen (it imports %s when a server declares auth) or add import _ %q to the agent's main package",
		server, ErrNotLinked, Package, Package)
}
