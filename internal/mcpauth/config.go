// Package mcpauth is the runtime's OAuth 2.1 client for MCP servers over
// http and sse, as the MCP authorization spec defines it, built on the
// go-sdk's auth and oauthex packages: protected-resource and
// authorization-server metadata discovery (with the 2025-03-26 fallbacks),
// scopes from WWW-Authenticate and step-up, PKCE authorization code with a
// loopback redirect, pre-registered clients, dynamic client registration
// and client ID metadata documents, client credentials (secret or
// private_key_jwt), enterprise-managed authorization (SEP-990), refresh
// tokens, and a per-user token store.
//
// A user logs in once with [Login] (the agent's `login SERVER` command);
// serving never starts a login by itself: a [Handler] made with [New] uses
// the stored token, refreshes it before it expires, and when it cannot
// (revoked, expired without a refresh token) fails with a
// [*LoginRequiredError] whose message tells the user what to run.
//
//	cfg → Login(ctx, cfg, openBrowser, out)   loopback redirect, browser, code, tokens → Store
//	cfg → New(cfg, nil) → Handler             auth.OAuthHandler for mcp.StreamableClientTransport
//	                      Handler.Transport   the same for the sse transport's http.Client
//
// Secrets (client secret, private key, tokens, codes) never appear in
// errors or events: every error leaving a Handler is scrubbed.
package mcpauth

import (
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strings"
)

// Modes.
const (
	// ModeOAuth: a user logs in in a browser (authorization code with PKCE,
	// loopback redirect); the agent then refreshes the token on its own.
	ModeOAuth = "oauth"
	// ModeClientCredentials: no user; the agent authenticates as itself
	// with a client secret or a private key (private_key_jwt).
	ModeClientCredentials = "client_credentials"
	// ModeEnterprise: enterprise-managed authorization (SEP-990): an ID
	// token from the organisation's identity provider is exchanged for an
	// ID-JAG there, and the ID-JAG for an access token at the server's
	// authorization server (token exchange, then JWT bearer grant).
	ModeEnterprise = "enterprise"
)

// Config is one server's auth block, resolved: env() values read, files
// not yet (PrivateKeyFile is read when the handler is made).
//
// The spec block it comes from:
//
//	server "github" {
//	  url = "https://api.githubcopilot.com/mcp/"
//	  auth {
//	    mode                = "oauth"                      # oauth (default) | client_credentials | enterprise
//	    client_id           = env("GITHUB_CLIENT_ID")      # pre-registered client; omitted (oauth): client_metadata_url, else dynamic registration
//	    client_secret       = env("GITHUB_CLIENT_SECRET")  # env() only; a confidential client
//	    private_key         = env("MCP_CLIENT_KEY_PEM")    # client_credentials: PEM key for private_key_jwt; env() only
//	    private_key_file    = "/etc/agent/mcp-key.pem"     # … or a PEM file read at run time (never at generate time)
//	    signing_alg         = "ES256"                      # private_key_jwt: default from the key (ES256/384/512, RS256, EdDSA)
//	    client_metadata_url = "https://agent.example/oauth/client.json"  # oauth: client ID metadata document (CIMD)
//	    scopes              = ["repo", "read:org"]         # default: what the server asks for (WWW-Authenticate, then its metadata)
//	    redirect_uri        = "http://127.0.0.1:8765/callback"  # oauth, enterprise: loopback http only; default a free port on 127.0.0.1
//	    issuer              = "https://github.com/login/oauth"  # with client_id: the authorization server it belongs to; any other is refused
//	    idp_issuer          = "https://acme.okta.com"      # enterprise: the identity provider
//	    idp_client_id       = env("OKTA_CLIENT_ID")        # enterprise: this agent's client at the IdP
//	    idp_client_secret   = env("OKTA_CLIENT_SECRET")    # enterprise: env() only; omitted: a public client
//	    id_token            = env("IDP_ID_TOKEN")          # enterprise: an ID token the environment provides (CI, workload identity) instead of a login
//	  }
//	}
//
// The token endpoint's client authentication (client_secret_basic,
// client_secret_post, none) follows the authorization server's metadata
// and the registration response; private_key_jwt follows from a key.
// Validate says which combinations are wrong, attribute by attribute.
type Config struct {
	// Server is the server's name in the spec (messages, login hint).
	Server string
	// URL is the MCP endpoint: the protected resource.
	URL string
	// Transport is the server's: "http" (streamable, the default) or "sse".
	Transport string
	// Agent is the command the login hint names ("run: AGENT login SERVER").
	Agent string

	Mode              string
	ClientID          string
	ClientSecret      string
	PrivateKey        string // PEM
	PrivateKeyFile    string
	SigningAlg        string
	ClientMetadataURL string
	Scopes            []string
	RedirectURI       string
	Issuer            string
	IDPIssuer         string
	IDPClientID       string
	IDPClientSecret   string
	IDToken           string

	// Store holds the tokens; nil: DefaultStore.
	Store *Store
	// Tokens, when set, holds the tokens instead of Store: the store a
	// fleet of replicas shares (SharedTokens).
	Tokens TokenStore
	// HTTPClient makes every request (discovery, registration, token);
	// nil: http.DefaultClient.
	HTTPClient *http.Client
	// Logger gets the auth.* events; nil: discarded.
	Logger *slog.Logger
}

// Problem is one mistake in a Config, tied to the attribute that carries
// it so the spec loader can point at its range.
type Problem struct {
	Attr    string // the attribute to underline ("" for the whole block)
	Summary string // short title-case phrase
	Detail  string // full sentences, with what to do
}

func (p Problem) Error() string { return fmt.Sprintf("auth.%s: %s: %s", p.Attr, p.Summary, p.Detail) }

// Attributes of the auth block, for the spec loader's schema and
// "did you mean" suggestions.
var Attributes = []string{
	"mode", "client_id", "client_secret", "private_key", "private_key_file", "signing_alg",
	"client_metadata_url", "scopes", "redirect_uri", "issuer",
	"idp_issuer", "idp_client_id", "idp_client_secret", "id_token",
}

// Modes lists the values of mode.
var Modes = []string{ModeOAuth, ModeClientCredentials, ModeEnterprise}

func (c *Config) mode() string {
	if c.Mode == "" {
		return ModeOAuth
	}
	return c.Mode
}

// Validate returns every mistake in c, or nil. The spec loader calls it
// at generate time, when env() values are not known: it passes a
// non-empty placeholder for each attribute set with env(), since the
// rules look at which attributes are set (and check URLs, scopes and
// signing_alg, which are literal).
func (c *Config) Validate() []Problem {
	var ps []Problem
	add := func(attr, summary, detail string, args ...any) {
		ps = append(ps, Problem{Attr: attr, Summary: summary, Detail: fmt.Sprintf(detail, args...)})
	}
	notFor := func(attr, value, mode string) {
		if value != "" {
			add(attr, "Attribute not used by this mode", "%s is not used with mode = %q; remove it.", attr, mode)
		}
	}
	mode := c.mode()
	switch mode {
	case ModeOAuth:
		notFor("private_key", c.PrivateKey, mode)
		notFor("private_key_file", c.PrivateKeyFile, mode)
		notFor("signing_alg", c.SigningAlg, mode)
		c.validateIDP(notFor, mode)
	case ModeClientCredentials:
		notFor("client_metadata_url", c.ClientMetadataURL, mode)
		notFor("redirect_uri", c.RedirectURI, mode)
		c.validateIDP(notFor, mode)
		n := 0
		for _, v := range []string{c.ClientSecret, c.PrivateKey, c.PrivateKeyFile} {
			if v != "" {
				n++
			}
		}
		if n > 1 {
			add("client_secret", "Conflicting client credentials", "Set one of client_secret, private_key and private_key_file: a client authenticates one way.")
		}
		if c.SigningAlg != "" && c.PrivateKey == "" && c.PrivateKeyFile == "" {
			add("signing_alg", "Signing algorithm without a key", "signing_alg applies to private_key or private_key_file; set one, or remove signing_alg.")
		}
	case ModeEnterprise:
		notFor("client_metadata_url", c.ClientMetadataURL, mode)
		notFor("private_key", c.PrivateKey, mode)
		notFor("private_key_file", c.PrivateKeyFile, mode)
		notFor("signing_alg", c.SigningAlg, mode)
		if c.IDPIssuer == "" {
			add("idp_issuer", "Missing identity provider", "mode = \"enterprise\" needs idp_issuer, the issuer URL of the organisation's identity provider.")
		} else if err := httpsOrLoopback(c.IDPIssuer); err != nil {
			add("idp_issuer", "Invalid identity provider URL", "%v.", err)
		}
		if c.IDPClientID == "" {
			add("idp_client_id", "Missing identity provider client", "mode = \"enterprise\" logs in and exchanges tokens at the identity provider as idp_client_id; set it.")
		}
	default:
		add("mode", "Unknown auth mode", "mode must be one of %s; got %q.", quoteList(Modes), c.Mode)
		return ps
	}
	if c.ClientSecret != "" && c.ClientID == "" && mode != ModeClientCredentials {
		add("client_secret", "Client secret without a client", "client_secret belongs to a pre-registered client: set client_id too.")
	}
	if c.ClientID == "" && mode != ModeOAuth {
		add("client_id", "Missing client_id", "mode = %q needs the client_id registered at the authorization server.", mode)
	}
	if mode == ModeClientCredentials && c.ClientID != "" && c.ClientSecret == "" && c.PrivateKey == "" && c.PrivateKeyFile == "" {
		add("client_secret", "Missing client credentials", "mode = \"client_credentials\" authenticates the agent itself: set client_secret, private_key or private_key_file.")
	}
	if c.Issuer != "" && c.ClientID == "" {
		add("issuer", "Issuer without a client", "issuer names the authorization server client_id is registered with: set client_id too, or remove issuer.")
	}
	if c.ClientMetadataURL != "" {
		if u, err := url.Parse(c.ClientMetadataURL); err != nil || u.Scheme != "https" || u.Host == "" || u.Path == "" || u.Path == "/" {
			add("client_metadata_url", "Invalid client metadata URL", "A client ID metadata document is identified by an https URL with a path (like https://agent.example/oauth/client.json); got %q.", c.ClientMetadataURL)
		}
	}
	if c.RedirectURI != "" {
		if _, err := parseRedirect(c.RedirectURI); err != nil {
			add("redirect_uri", "Invalid redirect URI", "%v.", err)
		}
	}
	for _, s := range c.Scopes {
		if s == "" || strings.ContainsAny(s, " \t\r\n\"\\") {
			add("scopes", "Invalid scope", "A scope is one word without spaces, quotes or backslashes; got %q.", s)
		}
	}
	if c.SigningAlg != "" && !slices.Contains(signingAlgs, c.SigningAlg) {
		add("signing_alg", "Unknown signing algorithm", "signing_alg must be one of %s; got %q.", quoteList(signingAlgs), c.SigningAlg)
	}
	return ps
}

func (c *Config) validateIDP(notFor func(attr, value, mode string), mode string) {
	notFor("idp_issuer", c.IDPIssuer, mode)
	notFor("idp_client_id", c.IDPClientID, mode)
	notFor("idp_client_secret", c.IDPClientSecret, mode)
	notFor("id_token", c.IDToken, mode)
}

// check is Validate as one error, for the run-time entry points.
func (c *Config) check() error {
	if c.URL == "" {
		return errors.New("auth: the server has no url")
	}
	var errs []error
	for _, p := range c.Validate() {
		errs = append(errs, p)
	}
	return errors.Join(errs...)
}

// key is the store key: the server and who the agent is to it.
func (c *Config) key() Key {
	client := c.ClientID
	switch {
	case c.mode() == ModeEnterprise:
		client = "enterprise:" + c.ClientID + "@" + c.IDPIssuer
	case client == "" && c.ClientMetadataURL != "":
		client = c.ClientMetadataURL
	case client == "":
		client = "dynamic"
	}
	return Key{ServerURL: c.URL, Client: client}
}

func (c *Config) store() (TokenStore, error) {
	if c.Tokens != nil {
		return c.Tokens, nil
	}
	if c.Store != nil {
		return c.Store, nil
	}
	s, err := DefaultStore()
	if err != nil {
		return nil, err
	}
	return s, nil
}

func (c *Config) httpClient() *http.Client {
	if c.HTTPClient != nil {
		return c.HTTPClient
	}
	return http.DefaultClient
}

func (c *Config) logger() *slog.Logger {
	if c.Logger != nil {
		return c.Logger
	}
	return slog.New(slog.DiscardHandler)
}

func (c *Config) agent() string {
	if c.Agent == "" {
		return "agent"
	}
	return c.Agent
}

// parseRedirect checks a redirect URI: http on a loopback host (RFC 8252
// §7.3; a browser redirect to anything else would leave this machine).
func parseRedirect(s string) (*url.URL, error) {
	u, err := url.Parse(s)
	if err != nil {
		return nil, fmt.Errorf("redirect_uri %q is not a URL", s)
	}
	if u.Scheme != "http" || !isLoopbackHost(u.Hostname()) {
		return nil, fmt.Errorf("redirect_uri must be http on a loopback host (127.0.0.1, [::1] or localhost), where the agent listens for the browser; got %q", s)
	}
	if u.RawQuery != "" || u.Fragment != "" || u.User != nil {
		return nil, fmt.Errorf("redirect_uri must have no query, fragment or user; got %q", s)
	}
	return u, nil
}

func isLoopbackHost(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

func httpsOrLoopback(s string) error {
	u, err := url.Parse(s)
	if err != nil || u.Host == "" {
		return fmt.Errorf("%q is not an absolute URL", s)
	}
	if u.Scheme != "https" && (u.Scheme != "http" || !isLoopbackHost(u.Hostname())) {
		return fmt.Errorf("%q must use https (http only on a loopback host)", s)
	}
	return nil
}

func quoteList(xs []string) string {
	q := make([]string, len(xs))
	for i, x := range xs {
		q[i] = fmt.Sprintf("%q", x)
	}
	return strings.Join(q, ", ")
}
