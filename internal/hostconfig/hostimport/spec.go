package hostimport

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/hashicorp/hcl/v2/hclwrite"
	"github.com/zclconf/go-cty/cty"
)

// writeSpec prints the imported servers and the agent as one HCL file.
func writeSpec(servers []*server, files []File, opts Options, vars []string) []byte {
	f := hclwrite.NewEmptyFile()
	body := f.Body()
	names := make([]string, len(files))
	for i, hf := range files {
		names[i] = hf.Name
	}
	comment(body, fmt.Sprintf("Imported by `toolgen import` from %s.", strings.Join(names, ", ")))
	if len(vars) > 0 {
		comment(body, "No secret was copied from those files: the agent reads these variables when it runs.")
		for _, v := range vars {
			comment(body, "  "+v)
		}
	}
	body.AppendNewline()
	if opts.Package != "" {
		tg := body.AppendNewBlock("toolgen", nil).Body()
		tg.SetAttributeValue("package", cty.StringVal(opts.Package))
		body.AppendNewline()
	}
	use := make([]hclwrite.Tokens, len(servers))
	for i, s := range servers {
		writeServer(body.AppendNewBlock("server", []string{s.name}).Body(), s)
		body.AppendNewline()
		use[i] = hclwrite.TokensForTraversal(hcl.Traversal{hcl.TraverseRoot{Name: "server"}, hcl.TraverseAttr{Name: s.name}})
	}
	agent := body.AppendNewBlock("agent", []string{opts.Agent}).Body()
	agent.SetAttributeValue("description", cty.StringVal("The MCP servers of "+strings.Join(names, ", ")+"."))
	agent.AppendNewBlock("tools", nil).Body().SetAttributeRaw("use", hclwrite.TokensForTuple(use))
	return hclwrite.Format(f.Bytes())
}

func comment(body *hclwrite.Body, text string) {
	body.AppendUnstructuredTokens(hclwrite.Tokens{{Type: hclsyntax.TokenComment, Bytes: []byte("# " + text + "\n")}})
}

func writeServer(b *hclwrite.Body, s *server) {
	b.SetAttributeValue("transport", cty.StringVal(s.transport))
	if s.transport == "stdio" {
		b.SetAttributeValue("command", cty.StringVal(s.command))
		if len(s.args) > 0 {
			args := make([]cty.Value, len(s.args))
			for i, a := range s.args {
				args[i] = cty.StringVal(a)
			}
			b.SetAttributeValue("args", cty.ListVal(args))
		}
		if len(s.env) > 0 {
			b.SetAttributeRaw("env", mapTokens(s.env))
		}
		return
	}
	b.SetAttributeRaw("url", s.url.tokens())
	if len(s.headers) > 0 {
		b.SetAttributeRaw("headers", mapTokens(s.headers))
	}
}

// plainKeyRe is a key written bare; others are quoted.
var plainKeyRe = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

func mapTokens(kvs []keyVal) hclwrite.Tokens {
	attrs := make([]hclwrite.ObjectAttrTokens, len(kvs))
	for i, kv := range kvs {
		name := hclwrite.TokensForValue(cty.StringVal(kv.key))
		switch kv.key {
		case "for", "in", "if", "true", "false", "null":
		default:
			if plainKeyRe.MatchString(kv.key) {
				name = hclwrite.TokensForIdentifier(kv.key)
			}
		}
		attrs[i] = hclwrite.ObjectAttrTokens{Name: name, Value: kv.val.tokens()}
	}
	return hclwrite.TokensForObject(attrs)
}

// tokens writes a value: a string, env("NAME") or env("NAME", "DEFAULT"),
// or a template of both.
func (v value) tokens() hclwrite.Tokens {
	envCall := func(p *part) hclwrite.Tokens {
		args := []hclwrite.Tokens{hclwrite.TokensForValue(cty.StringVal(p.env))}
		if p.def != nil {
			args = append(args, hclwrite.TokensForValue(cty.StringVal(*p.def)))
		}
		return hclwrite.TokensForFunctionCall("env", args...)
	}
	if len(v) == 1 && v[0].env != "" {
		return envCall(v[0])
	}
	toks := hclwrite.Tokens{{Type: hclsyntax.TokenOQuote, Bytes: []byte(`"`)}}
	interp := func(inner hclwrite.Tokens) {
		toks = append(toks, &hclwrite.Token{Type: hclsyntax.TokenTemplateInterp, Bytes: []byte("${")})
		toks = append(toks, inner...)
		toks = append(toks, &hclwrite.Token{Type: hclsyntax.TokenTemplateSeqEnd, Bytes: []byte("}")})
	}
	for i, p := range v {
		if p.env == "" {
			lit := p.lit
			// A $ just before ${ would read as the escape $${: write it
			// as an interpolated "$".
			dollar := strings.HasSuffix(lit, "$") && i+1 < len(v) && v[i+1].env != ""
			if dollar {
				lit = lit[:len(lit)-1]
			}
			// The quoted literal of a string, escaped as HCL needs ($${ too).
			q := hclwrite.TokensForValue(cty.StringVal(lit))
			toks = append(toks, q[1:len(q)-1]...)
			if dollar {
				interp(hclwrite.TokensForValue(cty.StringVal("$")))
			}
			continue
		}
		interp(envCall(p))
	}
	return append(toks, &hclwrite.Token{Type: hclsyntax.TokenCQuote, Bytes: []byte(`"`)})
}
