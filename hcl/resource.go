package hcl

import (
	"fmt"
	"net/url"
	"regexp"

	"github.com/hashicorp/hcl/v2"
)

// resourceBlock is a declared text resource.
type resourceBlock struct {
	Name        string
	NameRange   hcl.Range
	URI         string
	URIRange    hcl.Range
	Description string
	MIMEType    string
	Text        string
	DeclRange   hcl.Range
}

const defaultMIMEType = "text/plain"

var (
	resourceSchema = &hcl.BodySchema{
		Attributes: []hcl.AttributeSchema{
			{Name: "uri", Required: true}, {Name: "description"}, {Name: "mime_type"}, {Name: "text", Required: true},
		},
	}
	uriSchemeRe = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9+.-]*:`)
	mimeTypeRe  = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9!#$&^_.+-]*/[A-Za-z0-9][A-Za-z0-9!#$&^_.+-]*(\s*;.*)?$`)
)

func decodeResource(block *hcl.Block, ctx *hcl.EvalContext) (*resourceBlock, hcl.Diagnostics) {
	r := &resourceBlock{Name: block.Labels[0], NameRange: block.LabelRanges[0], DeclRange: block.DefRange, MIMEType: defaultMIMEType}
	diags := checkName("resource", r.Name, r.NameRange)
	content, d := block.Body.Content(resourceSchema)
	diags = append(diags, d...)
	attrs := content.Attributes
	in := attrReader{attrs, ctx, &diags}
	errAt := func(rng hcl.Range, summary, detail string) {
		diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: summary, Detail: detail, Subject: rng.Ptr(), Context: block.DefRange.Ptr()})
	}
	if a := attrs["uri"]; a != nil {
		v, d := evalString(a.Expr, ctx)
		diags = append(diags, d...)
		r.URI, r.URIRange = v, a.Expr.Range()
		if !d.HasErrors() {
			if detail := checkURI(v); detail != "" {
				errAt(a.Expr.Range(), "Invalid URI", detail)
			}
		}
	}
	readAttr(in, "description", evalString, &r.Description)
	if a := attrs["mime_type"]; a != nil {
		v, d := evalString(a.Expr, ctx)
		diags = append(diags, d...)
		r.MIMEType = v
		if !d.HasErrors() && !mimeTypeRe.MatchString(v) {
			errAt(a.Expr.Range(), "Invalid MIME type", fmt.Sprintf("%q is not a MIME type such as \"text/markdown\".", v))
		}
	}
	readAttr(in, "text", evalString, &r.Text)
	return r, diags
}

// checkURI says what is wrong with a resource URI, or "".
func checkURI(s string) string {
	if !uriSchemeRe.MatchString(s) {
		return fmt.Sprintf("%q is not a URI with a scheme, such as \"docs://style-guide\" or \"file:///srv/notes.md\".", s)
	}
	if _, err := url.Parse(s); err != nil {
		return fmt.Sprintf("%q is not a valid URI: %s.", s, unwrapURLErr(err))
	}
	return ""
}

func unwrapURLErr(err error) error {
	if ue, ok := err.(*url.Error); ok {
		return ue.Err
	}
	return err
}
