package mcpauth

import (
	"path/filepath"
	"strings"
	"testing"
)

func TestValidate(t *testing.T) {
	for _, tc := range []struct {
		name string
		cfg  Config
		want []string // "attr: summary"
	}{
		{"dynamic registration", Config{}, nil},
		{"pre-registered", Config{ClientID: "a", ClientSecret: "s", Scopes: []string{"repo"}, RedirectURI: "http://127.0.0.1:8765/callback", Issuer: "https://as.example"}, nil},
		{"cimd", Config{ClientMetadataURL: "https://agent.example/client.json", RedirectURI: "http://localhost/cb"}, nil},
		{"client secret", Config{Mode: "client_credentials", ClientID: "a", ClientSecret: "s"}, nil},
		{"private key", Config{Mode: "client_credentials", ClientID: "a", PrivateKeyFile: "/k.pem", SigningAlg: "ES256"}, nil},
		{"enterprise", Config{Mode: "enterprise", ClientID: "a", ClientSecret: "s", IDPIssuer: "https://acme.okta.com", IDPClientID: "i"}, nil},
		{"unknown mode", Config{Mode: "oauth2"}, []string{"mode: Unknown auth mode"}},
		{"key in oauth", Config{PrivateKey: "pem"}, []string{"private_key: Attribute not used by this mode"}},
		{"secret alone", Config{ClientSecret: "s"}, []string{"client_secret: Client secret without a client"}},
		{"cc without client", Config{Mode: "client_credentials", ClientSecret: "s"}, []string{"client_id: Missing client_id"}},
		{"cc without credentials", Config{Mode: "client_credentials", ClientID: "a"}, []string{"client_secret: Missing client credentials"}},
		{"cc two credentials", Config{Mode: "client_credentials", ClientID: "a", ClientSecret: "s", PrivateKey: "pem"}, []string{"client_secret: Conflicting client credentials"}},
		{"cc redirect", Config{Mode: "client_credentials", ClientID: "a", ClientSecret: "s", RedirectURI: "http://127.0.0.1/cb"}, []string{"redirect_uri: Attribute not used by this mode"}},
		{"alg without key", Config{Mode: "client_credentials", ClientID: "a", ClientSecret: "s", SigningAlg: "ES256"}, []string{"signing_alg: Signing algorithm without a key"}},
		{"bad alg", Config{Mode: "client_credentials", ClientID: "a", PrivateKey: "pem", SigningAlg: "HS256"}, []string{"signing_alg: Unknown signing algorithm"}},
		{"remote redirect", Config{RedirectURI: "https://agent.example/cb"}, []string{"redirect_uri: Invalid redirect URI"}},
		{"http cimd", Config{ClientMetadataURL: "http://agent.example/client.json"}, []string{"client_metadata_url: Invalid client metadata URL"}},
		{"root cimd", Config{ClientMetadataURL: "https://agent.example/"}, []string{"client_metadata_url: Invalid client metadata URL"}},
		{"scope with space", Config{Scopes: []string{"a b"}}, []string{"scopes: Invalid scope"}},
		{"issuer alone", Config{Issuer: "https://as.example"}, []string{"issuer: Issuer without a client"}},
		{"enterprise bare", Config{Mode: "enterprise"}, []string{"idp_issuer: Missing identity provider", "idp_client_id: Missing identity provider client", "client_id: Missing client_id"}},
		{"idp in oauth", Config{IDPIssuer: "https://idp"}, []string{"idp_issuer: Attribute not used by this mode"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var got []string
			for _, p := range tc.cfg.Validate() {
				got = append(got, p.Attr+": "+p.Summary)
				if !strings.HasSuffix(p.Detail, ".") {
					t.Errorf("detail is not a sentence: %q", p.Detail)
				}
			}
			if strings.Join(got, "\n") != strings.Join(tc.want, "\n") {
				t.Errorf("problems:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(tc.want, "\n"))
			}
		})
	}
}

func TestDefaultStore(t *testing.T) {
	t.Setenv("XDG_STATE_HOME", "/xdg/state")
	s, err := DefaultStore()
	if err != nil || s.Dir() != "/xdg/state/toolgen/oauth" {
		t.Errorf("with XDG_STATE_HOME: %v, %v", s.Dir(), err)
	}
	t.Setenv("XDG_STATE_HOME", "relative/ignored")
	t.Setenv("HOME", "/home/u")
	s, err = DefaultStore()
	if err != nil || s.Dir() != filepath.FromSlash("/home/u/.local/state/toolgen/oauth") {
		t.Errorf("without: %v, %v", s.Dir(), err)
	}
}

// TestStoreKeys: each server and client has its own entry; a file whose
// server does not match its key is not taken.
func TestStoreKeys(t *testing.T) {
	s := OpenStore(t.TempDir())
	a := Key{ServerURL: "https://a.example/mcp", Client: "dynamic"}
	b := Key{ServerURL: "https://a.example/mcp", Client: "app-1"}
	if err := s.Save(a, &Entry{Token: Token{AccessToken: "A"}}); err != nil {
		t.Fatal(err)
	}
	if e, _ := s.Load(b); e != nil {
		t.Error("another client's login was returned")
	}
	if e, _ := s.Load(a); e == nil || e.Token.AccessToken != "A" || e.ServerURL != a.ServerURL {
		t.Errorf("Load = %+v", e)
	}
	if !strings.HasPrefix(a.file(), "a.example-") {
		t.Errorf("file name %q does not say which server", a.file())
	}
	if err := s.Delete(a); err != nil {
		t.Fatal(err)
	}
	if e, _ := s.Load(a); e != nil {
		t.Error("deleted entry still there")
	}
}
