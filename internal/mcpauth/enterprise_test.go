package mcpauth_test

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"github.com/toolgen-dev/toolgen/internal/mcpauth"
)

// TestEnterpriseLogin: enterprise-managed authorization (SEP-990) with a
// user: the login goes through the organisation's identity provider (OIDC,
// in the browser); serving exchanges its ID token for an ID-JAG and that
// for the server's access token, again when the access token expires, with
// a refreshed ID token once the first one expired; a revoked identity
// provider login asks for a new login.
func TestEnterpriseLogin(t *testing.T) {
	w := newWorld(t)
	idp := newAuthServer(t, w.clock)
	idp.EnableIDP()
	idpClient, idpSecret := idp.PreRegister("http://127.0.0.1/callback")
	w.as.Trust(idp)
	app, appSecret := w.as.PreRegister()
	cfg := w.config()
	cfg.Mode, cfg.ClientID, cfg.ClientSecret = mcpauth.ModeEnterprise, app, appSecret
	cfg.IDPIssuer, cfg.IDPClientID, cfg.IDPClientSecret = idp.Srv.URL, idpClient, idpSecret
	defer func() { // the identity provider's values are secrets too
		for _, s := range idp.Secrets() {
			if strings.Contains(w.logs.String(), s) {
				t.Errorf("identity provider secret %.12s… in the logs", s)
			}
		}
	}()

	var out bytes.Buffer
	if err := mcpauth.Login(context.Background(), cfg, browse(t), &out); err != nil {
		t.Fatalf("Login: %v\n%s", err, &out)
	}
	w.logs.WriteString(out.String())
	if !strings.Contains(out.String(), `Logged in to server "docs"`) || idp.Count("code") != 1 || idp.Count("exchange") != 1 || w.as.Count("jwt-bearer") != 1 {
		t.Fatalf("login: idp codes %d, exchanges %d, jwt-bearer grants %d\n%s", idp.Count("code"), idp.Count("exchange"), w.as.Count("jwt-bearer"), &out)
	}
	e, err := cfg.Store.Load(mcpauth.Key{ServerURL: w.url, Client: "enterprise:" + app + "@" + idp.Srv.URL})
	if err != nil || e == nil || e.IDP == nil || e.IDP.IDToken == "" || e.IDP.RefreshToken == "" {
		t.Fatalf("stored login: %+v, %v", e, err)
	}

	h, err := mcpauth.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	mcpauth.SetClock(h, w.clock.Now)
	c, err := w.connect(h)
	if err != nil {
		t.Fatal(err)
	}
	if got, err := w.call(c); err != nil || got != "user alice" {
		t.Fatalf("whoami = %q, %v", got, err)
	}
	// Past the access token and the ID token: a refreshed ID token, a new
	// exchange, no user.
	w.clock.Advance(2 * time.Hour)
	if got, err := w.call(c); err != nil || got != "user alice" {
		t.Fatalf("whoami after expiry = %q, %v", got, err)
	}
	if idp.Count("refresh") != 1 || idp.Count("exchange") != 2 || w.as.Count("jwt-bearer") != 2 || idp.Count("code") != 1 {
		t.Errorf("renewal: idp refreshes %d, exchanges %d, jwt-bearer %d, codes %d; want 1, 2, 2, 1",
			idp.Count("refresh"), idp.Count("exchange"), w.as.Count("jwt-bearer"), idp.Count("code"))
	}

	// The organisation ends the user's session at the identity provider.
	e, _ = cfg.Store.Load(mcpauth.Key{ServerURL: w.url, Client: "enterprise:" + app + "@" + idp.Srv.URL})
	revoke(t, idp, e.IDP.RefreshToken)
	w.clock.Advance(2 * time.Hour)
	_, err = w.call(c)
	if err == nil || !strings.Contains(err.Error(), "identity provider's login expired") || !strings.Contains(err.Error(), "run: myagent login docs") {
		t.Errorf("after the identity provider's revocation: %v", err)
	}
}
