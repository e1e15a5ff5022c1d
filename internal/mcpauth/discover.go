package mcpauth

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/oauthex"
	"golang.org/x/oauth2"
)

// discover finds the server's protected-resource metadata and its
// authorization server's metadata, the MCP way (go-sdk's code flow does the
// same inside; its helpers are not exported): the resource_metadata URL of
// the challenge, then the well-known URLs at the endpoint's path and at the
// root; without any, the 2025-03-26 fallbacks (the server's origin is the
// authorization server, its endpoints at /authorize, /token, /register).
func discover(ctx context.Context, client *http.Client, serverURL string, challenges []oauthex.Challenge) (*oauthex.ProtectedResourceMetadata, *oauthex.AuthServerMeta, error) {
	prm, err := resourceMetadata(ctx, client, serverURL, challengeParam(challenges, "resource_metadata"))
	if err != nil {
		return nil, nil, err
	}
	issuer := prm.AuthorizationServers[0]
	asm, err := auth.GetAuthServerMetadata(ctx, issuer, client)
	if err != nil {
		return nil, nil, fmt.Errorf("authorization server metadata: %w", err)
	}
	if asm == nil {
		asm = &oauthex.AuthServerMeta{
			Issuer:                issuer,
			AuthorizationEndpoint: issuer + "/authorize",
			TokenEndpoint:         issuer + "/token",
			RegistrationEndpoint:  issuer + "/register",
		}
	}
	return prm, asm, nil
}

func resourceMetadata(ctx context.Context, client *http.Client, serverURL, fromChallenge string) (*oauthex.ProtectedResourceMetadata, error) {
	ru, err := url.Parse(serverURL)
	if err != nil {
		return nil, fmt.Errorf("server URL: %w", err)
	}
	type try struct{ metadata, resource string }
	var tries []try
	if fromChallenge != "" {
		tries = append(tries, try{fromChallenge, serverURL})
	}
	at := *ru
	at.Path = "/.well-known/oauth-protected-resource/" + strings.TrimLeft(ru.Path, "/")
	at.RawQuery, at.Fragment = "", ""
	tries = append(tries, try{at.String(), serverURL})
	root := *ru
	root.Path, root.RawQuery, root.Fragment = "", "", ""
	at.Path = "/.well-known/oauth-protected-resource"
	tries = append(tries, try{at.String(), root.String()})
	for _, t := range tries {
		prm, err := oauthex.GetProtectedResourceMetadata(ctx, t.metadata, t.resource, client)
		if err != nil || prm == nil {
			continue
		}
		if len(prm.AuthorizationServers) == 0 {
			return nil, fmt.Errorf("protected resource metadata at %s names no authorization server", t.metadata)
		}
		return prm, nil
	}
	return &oauthex.ProtectedResourceMetadata{Resource: serverURL, AuthorizationServers: []string{root.String()}}, nil
}

// authStyle picks how to send client credentials to the token endpoint
// from what the authorization server supports: client_secret_post, then
// client_secret_basic (OAuth 2.1's order, as go-sdk), else let oauth2 find
// out.
func authStyle(supported []string) oauth2.AuthStyle {
	switch {
	case slices.Contains(supported, "client_secret_post"):
		return oauth2.AuthStyleInParams
	case slices.Contains(supported, "client_secret_basic"):
		return oauth2.AuthStyleInHeader
	}
	return oauth2.AuthStyleAutoDetect
}

// requestScopes is the scope selection of the MCP spec for grants without
// a user: the configured scopes (plus what the challenge names), else the
// challenge's, else what the resource advertises.
func requestScopes(configured, challenged, advertised []string) []string {
	switch {
	case len(configured) > 0:
		return union(configured, challenged)
	case len(challenged) > 0:
		return challenged
	}
	return advertised
}
