package decl

// ServerAuth is a server's auth block: OAuth 2.1 to an http or sse MCP
// server (internal/mcpauth.Config's design). Values that may come from
// env() are read when the server connects, never at generate time; the
// secrets among them (ClientSecret, PrivateKey, IDPClientSecret, IDToken)
// can only come from env().
type ServerAuth struct {
	Mode              string // oauth (default) | client_credentials | enterprise
	ClientID          Value
	ClientSecret      Value
	PrivateKey        Value // PEM, for private_key_jwt
	PrivateKeyFile    Value // read at run time
	SigningAlg        string
	ClientMetadataURL Value
	Scopes            []string
	RedirectURI       string
	Issuer            Value
	IDPIssuer         Value
	IDPClientID       Value
	IDPClientSecret   Value
	IDToken           Value
}

// Values lists the block's values that may carry env() parts, for
// whoever must scrub what they resolve to.
func (a *ServerAuth) Values() []Value {
	if a == nil {
		return nil
	}
	return []Value{a.ClientID, a.ClientSecret, a.PrivateKey, a.PrivateKeyFile, a.ClientMetadataURL,
		a.Issuer, a.IDPIssuer, a.IDPClientID, a.IDPClientSecret, a.IDToken}
}
