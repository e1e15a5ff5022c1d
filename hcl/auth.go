package hcl

import (
	"fmt"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/toolgen-dev/toolgen/hcl/ir"
	"github.com/toolgen-dev/toolgen/internal/mcpauth"
	"github.com/toolgen-dev/toolgen/runtime/decl"
)

// A server's auth block: OAuth 2.1 to an http or sse server. Its rules
// are internal/mcpauth's (Config.Validate); this file reads the block,
// keeps env() values for run time, and points each problem at its
// attribute.

var authSchema = func() *hcl.BodySchema {
	s := &hcl.BodySchema{}
	for _, a := range mcpauth.Attributes {
		s.Attributes = append(s.Attributes, hcl.AttributeSchema{Name: a})
	}
	return s
}()

// authSecrets are the attributes that may only come from env(): written
// literally they would be compiled into the agent binary.
var authSecrets = map[string]bool{"client_secret": true, "private_key": true, "idp_client_secret": true, "id_token": true}

// authURLs are checked as URLs by Validate; an env() value stands in for
// one at generate time.
var authURLs = map[string]bool{"client_metadata_url": true, "issuer": true, "idp_issuer": true}

func (s *serverBlock) decodeAuthBlocks(blocks hcl.Blocks, ctx *hcl.EvalContext) hcl.Diagnostics {
	var diags hcl.Diagnostics
	var first *hcl.Block
	for _, b := range blocks {
		if b.Type != "auth" {
			continue
		}
		if first != nil {
			diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Duplicate auth block",
				Detail: fmt.Sprintf("Server %q already has an auth block at %s.", s.Name, shortPos(first.DefRange)), Subject: b.DefRange.Ptr()})
			continue
		}
		first = b
		a, d := decodeAuth(b, ctx, s)
		diags = append(diags, d...)
		s.Auth = a
	}
	return diags
}

func decodeAuth(block *hcl.Block, ctx *hcl.EvalContext, s *serverBlock) (*ir.ServerAuth, hcl.Diagnostics) {
	content, diags := block.Body.Content(authSchema)
	bad := false // an attribute could not be read: Validate would misreport it
	errAt := func(rng hcl.Range, summary, detail string) {
		diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: summary, Detail: detail, Subject: rng.Ptr(), Context: block.DefRange.Ptr()})
	}
	if s.Transport != "" && s.Transport != ir.TransportHTTP && s.Transport != ir.TransportSSE {
		errAt(block.DefRange, "Auth block not used by transport", fmt.Sprintf("Server %q uses the %s transport; OAuth applies to http and sse servers only. Remove the auth block.", s.Name, s.Transport))
	}
	for _, h := range s.Headers {
		if strings.EqualFold(h.Key, "Authorization") {
			errAt(h.KeyRange, "Conflicting authorization", fmt.Sprintf("Server %q has an auth block, which sets the Authorization header itself; remove the header, or the auth block to send a static token.", s.Name))
		}
	}

	a := &ir.ServerAuth{Range: block.DefRange}
	attrs := content.Attributes
	// check holds the placeholders Validate sees for env() values.
	check := mcpauth.Config{Server: s.Name, URL: "https://placeholder.invalid/mcp", Transport: s.Transport}
	value := func(name string, dst *decl.Value, chk *string) {
		at := attrs[name]
		if at == nil {
			return
		}
		v, d := decodeValue(at.Expr, ctx)
		diags = append(diags, d...)
		if d.HasErrors() {
			bad = true
			return
		}
		*dst = v.Decl()
		var lit strings.Builder
		env := false
		for _, p := range v.Parts {
			lit.WriteString(p.Lit)
			env = env || p.Env != ""
		}
		_, inDefault := compiledText(v)
		if authSecrets[name] && (!env || strings.TrimSpace(lit.String()) != "" || inDefault) {
			errAt(at.Expr.Range(), "Literal secret", fmt.Sprintf("auth.%s is a secret: read it at run time with env(\"NAME\") (and nothing else, no default), so it is never compiled into the agent binary.", name))
		}
		switch {
		case !env:
			*chk = lit.String()
		case authURLs[name]:
			*chk = "https://env.invalid/placeholder"
		default:
			*chk = "placeholder"
		}
	}
	str := func(name string, dst, chk *string) {
		if at := attrs[name]; at != nil {
			v, d := evalString(at.Expr, ctx)
			diags = append(diags, d...)
			bad = bad || d.HasErrors()
			*dst, *chk = v, v
		}
	}
	str("mode", &a.Mode, &check.Mode)
	value("client_id", &a.ClientID, &check.ClientID)
	value("client_secret", &a.ClientSecret, &check.ClientSecret)
	value("private_key", &a.PrivateKey, &check.PrivateKey)
	value("private_key_file", &a.PrivateKeyFile, &check.PrivateKeyFile)
	str("signing_alg", &a.SigningAlg, &check.SigningAlg)
	value("client_metadata_url", &a.ClientMetadataURL, &check.ClientMetadataURL)
	str("redirect_uri", &a.RedirectURI, &check.RedirectURI)
	value("issuer", &a.Issuer, &check.Issuer)
	if at := attrs["issuer"]; at != nil {
		if d := checkIssuerScheme(ir.Value{Parts: a.Issuer}, at.Expr.Range(), block.DefRange); d != nil {
			diags = append(diags, d)
		}
	}
	value("idp_issuer", &a.IDPIssuer, &check.IDPIssuer)
	value("idp_client_id", &a.IDPClientID, &check.IDPClientID)
	value("idp_client_secret", &a.IDPClientSecret, &check.IDPClientSecret)
	value("id_token", &a.IDToken, &check.IDToken)
	if at := attrs["scopes"]; at != nil {
		v, d := evalStrings(at.Expr, ctx)
		diags = append(diags, d...)
		bad = bad || d.HasErrors()
		a.Scopes = strVals(v)
		check.Scopes = a.Scopes
	}
	if bad {
		return a, diags
	}
	for _, p := range check.Validate() {
		rng := block.DefRange
		if at := attrs[p.Attr]; at != nil {
			rng = at.Expr.Range()
		}
		detail := p.Detail
		if p.Attr == "mode" {
			detail += didYouMean(check.Mode, mcpauth.Modes)
		}
		errAt(rng, p.Summary, detail)
	}
	return a, diags
}
