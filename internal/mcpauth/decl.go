package mcpauth

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/toolgen-dev/toolgen/runtime/decl"
)

// FromDecl is the Config of a registry server's auth block, its env()
// values read now through getenv (nil: none set). url is the server's
// resolved URL. ok is false when the server has no auth block. The
// values read are returned too, for the caller's redactor.
func FromDecl(srv *decl.Server, url string, getenv func(string) (string, bool)) (cfg Config, secrets []string, ok bool, err error) {
	a := srv.Auth
	if a == nil {
		return Config{}, nil, false, nil
	}
	if getenv == nil {
		getenv = func(string) (string, bool) { return "", false }
	}
	cfg = Config{
		Server: srv.Name, URL: url, Transport: srv.Transport, Agent: AgentCommand(),
		Mode: a.Mode, SigningAlg: a.SigningAlg, Scopes: a.Scopes, RedirectURI: a.RedirectURI,
	}
	for _, f := range []struct {
		attr string
		v    decl.Value
		dst  *string
	}{
		{"client_id", a.ClientID, &cfg.ClientID},
		{"client_secret", a.ClientSecret, &cfg.ClientSecret},
		{"private_key", a.PrivateKey, &cfg.PrivateKey},
		{"private_key_file", a.PrivateKeyFile, &cfg.PrivateKeyFile},
		{"client_metadata_url", a.ClientMetadataURL, &cfg.ClientMetadataURL},
		{"issuer", a.Issuer, &cfg.Issuer},
		{"idp_issuer", a.IDPIssuer, &cfg.IDPIssuer},
		{"idp_client_id", a.IDPClientID, &cfg.IDPClientID},
		{"idp_client_secret", a.IDPClientSecret, &cfg.IDPClientSecret},
		{"id_token", a.IDToken, &cfg.IDToken},
	} {
		secrets = append(secrets, f.v.FromEnv(getenv)...)
		s, err := f.v.Resolve(getenv)
		if err != nil {
			return Config{}, nil, true, fmt.Errorf("server %q: auth.%s: %w", srv.Name, f.attr, err)
		}
		*f.dst = s
	}
	return cfg, secrets, true, nil
}

// AgentCommand is how the user runs this program, for the login hint:
// "./agent" when started by a relative path, else its name.
func AgentCommand() string {
	arg := os.Args[0]
	if filepath.IsAbs(arg) || !filepath.IsLocal(arg) || filepath.Base(arg) == arg {
		return filepath.Base(arg)
	}
	return "./" + filepath.Clean(arg)
}

var shared struct {
	mu       sync.Mutex
	handlers map[string]*Handler
}

// Shared returns the process's Handler for cfg, made once: every
// connection to the server uses one token and one background refresh.
// A handler lives as long as the process.
func Shared(cfg Config) (*Handler, error) {
	id := fmt.Sprintf("%q %p %p %p %p", []string{cfg.Server, cfg.URL, cfg.Transport, cfg.Mode, cfg.ClientID, cfg.ClientSecret,
		cfg.PrivateKey, cfg.PrivateKeyFile, cfg.SigningAlg, cfg.ClientMetadataURL, strings.Join(cfg.Scopes, " "), cfg.RedirectURI,
		cfg.Issuer, cfg.IDPIssuer, cfg.IDPClientID, cfg.IDPClientSecret, cfg.IDToken}, cfg.Store, cfg.Tokens, cfg.HTTPClient, cfg.Logger)
	shared.mu.Lock()
	defer shared.mu.Unlock()
	if h := shared.handlers[id]; h != nil {
		return h, nil
	}
	h, err := New(cfg)
	if err != nil {
		return nil, err
	}
	if shared.handlers == nil {
		shared.handlers = map[string]*Handler{}
	}
	shared.handlers[id] = h
	return h, nil
}
