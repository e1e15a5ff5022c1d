package templates

import (
	"github.com/toolgen-dev/toolgen/hcl/ir"
	"github.com/toolgen-dev/toolgen/runtime/decl"
)

// serverAuth maps a server's auth block; env() parts stay names, read
// when the agent connects.
func serverAuth(a *ir.ServerAuth) *decl.ServerAuth {
	if a == nil {
		return nil
	}
	return &decl.ServerAuth{
		Mode:              a.Mode,
		ClientID:          value(a.ClientID),
		ClientSecret:      value(a.ClientSecret),
		PrivateKey:        value(a.PrivateKey),
		PrivateKeyFile:    value(a.PrivateKeyFile),
		SigningAlg:        a.SigningAlg,
		ClientMetadataURL: value(a.ClientMetadataURL),
		Scopes:            a.Scopes,
		RedirectURI:       a.RedirectURI,
		Issuer:            value(a.Issuer),
		IDPIssuer:         value(a.IDPIssuer),
		IDPClientID:       value(a.IDPClientID),
		IDPClientSecret:   value(a.IDPClientSecret),
		IDToken:           value(a.IDToken),
	}
}
