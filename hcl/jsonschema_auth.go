package hcl

// ServerAuthJSON is a server's auth block (auth.go; internal/mcpauth.Config).
type ServerAuthJSON struct {
	Mode              string   `json:"mode,omitempty" jsonschema:"enum=oauth,enum=client_credentials,enum=enterprise" jsonschema_description:"oauth (default): a user logs in; client_credentials: the agent itself; enterprise: an ID-JAG from the organisation's identity provider."`
	ClientID          string   `json:"client_id,omitempty" jsonschema_description:"A pre-registered client; omitted (oauth): client_metadata_url, else dynamic registration. May use ${env(\"NAME\")}."`
	ClientSecret      string   `json:"client_secret,omitempty" jsonschema_description:"${env(\"NAME\")} only: a confidential client's secret."`
	PrivateKey        string   `json:"private_key,omitempty" jsonschema_description:"client_credentials: PEM key for private_key_jwt; ${env(\"NAME\")} only."`
	PrivateKeyFile    string   `json:"private_key_file,omitempty" jsonschema_description:"client_credentials: a PEM key file, read at run time."`
	SigningAlg        string   `json:"signing_alg,omitempty" jsonschema:"enum=ES256,enum=ES384,enum=ES512,enum=RS256,enum=RS384,enum=RS512,enum=PS256,enum=PS384,enum=PS512,enum=EdDSA" jsonschema_description:"private_key_jwt: default from the key."`
	ClientMetadataURL string   `json:"client_metadata_url,omitempty" jsonschema_description:"oauth: an https URL of a client ID metadata document."`
	Scopes            []string `json:"scopes,omitempty" jsonschema_description:"Default: what the server asks for."`
	RedirectURI       string   `json:"redirect_uri,omitempty" jsonschema_description:"oauth, enterprise: http on a loopback host; default a free port on 127.0.0.1."`
	Issuer            string   `json:"issuer,omitempty" jsonschema_description:"With client_id: the authorization server it is registered with; any other is refused."`
	IDPIssuer         string   `json:"idp_issuer,omitempty" jsonschema_description:"enterprise: the identity provider's issuer URL."`
	IDPClientID       string   `json:"idp_client_id,omitempty" jsonschema_description:"enterprise: this agent's client at the identity provider."`
	IDPClientSecret   string   `json:"idp_client_secret,omitempty" jsonschema_description:"enterprise: ${env(\"NAME\")} only."`
	IDToken           string   `json:"id_token,omitempty" jsonschema_description:"enterprise: ${env(\"NAME\")} only: an ID token the environment provides."`
}
