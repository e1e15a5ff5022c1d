package ir

import "github.com/hashicorp/hcl/v2"

// ServerAuth is a server's auth block (see runtime/decl.ServerAuth).
type ServerAuth struct {
	Mode              string
	ClientID          Value
	ClientSecret      Value
	PrivateKey        Value
	PrivateKeyFile    Value
	SigningAlg        string
	ClientMetadataURL Value
	Scopes            []string
	RedirectURI       string
	Issuer            Value
	IDPIssuer         Value
	IDPClientID       Value
	IDPClientSecret   Value
	IDToken           Value
	Range             hcl.Range
}
