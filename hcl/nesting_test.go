package hcl

import (
	"bytes"
	"fmt"
	"runtime/debug"
	"strings"
	"testing"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
)

func TestNativeNesting(t *testing.T) {
	deep := func(open, close string, n int) string {
		return strings.Repeat(open, n) + "1" + strings.Repeat(close, n)
	}
	for _, c := range []struct {
		name string
		src  string
		deep bool // nests more than 8 levels
	}{
		{"parens", "a = " + deep("(", ")", 9), true},
		{"parens at the limit", "a = " + deep("(", ")", 8), false},
		{"brackets", "a = " + deep("[", "]", 9), true},
		{"objects", "a = " + deep("{b = ", "}", 9), true},
		{"blocks", strings.Repeat("b {\n", 9) + strings.Repeat("}\n", 9), true},
		{"unary minus", "a = " + strings.Repeat("-", 9) + "1", true},
		{"unary not", "a = " + strings.Repeat("!", 9) + "true", true},
		{"conditionals", "a = " + strings.Repeat("x ? 1 : ", 9) + "2", true},
		{"conditionals in a list", "a = [" + strings.Repeat("x ? 1 : 2, ", 20) + "]", false},
		{"negative numbers on lines", strings.Repeat("a = -1\n", 20), false},
		{"negative numbers in an object", "a = {\n" + strings.Repeat("  b = -1\n", 20) + "}", false},
		{"unary minus across lines in brackets", "a = (" + strings.Repeat("-\n", 9) + "1)", true},
		{"unary minus across lines in a for", "a = {for k, v in m : k =>\n" + strings.Repeat("-\n", 9) + "v}", true},
		{"not equal is no operator", "a = " + strings.Repeat("x != ", 20) + "y", false},
		{"exponent sign", "a = [" + strings.Repeat("1e-5, 2E+3 ", 20) + "]", false},
		{"dashes in names", "a = " + strings.Repeat("x-", 20) + "y", false},
		{"templates", "a = " + strings.Repeat(`"${`, 5) + "1" + strings.Repeat(`}"`, 5), true},
		{"directives", `a = "` + strings.Repeat("%{if x}", 9) + strings.Repeat("%{endif}", 9) + `"`, true},
		{"closed directives", `a = "` + strings.Repeat("%{if x}a%{endif}", 20) + `"`, false},
		{"brackets in a string", `a = "` + strings.Repeat("(", 20) + `"`, false},
		{"escaped quote", `a = "\"` + strings.Repeat("(", 20) + `"`, false},
		{"escaped sequence", `a = "$${` + strings.Repeat("(", 20) + `}"`, false},
		{"backslash sequence is text", `a = "\${` + strings.Repeat("(", 20) + `}"`, false},
		{"string over lines", "a = \"x\n" + strings.Repeat("(", 20) + "\"", false},
		{"after the string", "a = \"x\n\"" + deep("(", ")", 9), true},
		{"line comment", "# " + strings.Repeat("(", 20) + "\na = 1", false},
		{"slash comment", "// " + strings.Repeat("(", 20) + "\na = 1", false},
		{"block comment", "/* " + strings.Repeat("(", 20) + " */ a = 1", false},
		{"unclosed block comment", "/* " + strings.Repeat("(", 20), true},
		{"heredoc", "a = <<EOT\n" + strings.Repeat("(", 20) + "\nEOT\n", false},
		{"indented heredoc", "a = <<-EOT\n  " + strings.Repeat("(", 20) + "\n  EOT\nb = " + deep("(", ")", 9), true},
		{"heredoc marker not alone", "a = <<EOT\nEOT " + strings.Repeat("(", 20) + "\nEOT\n", false},
		{"heredoc sequence", "a = <<EOT\n${" + deep("(", ")", 9) + "}\nEOT\n", true},
		{"not a heredoc", "a = <<EOT " + deep("(", ")", 9), true},
		{"brace closes the sequence", `a = "${ ( }` + strings.Repeat("(", 20) + `"`, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			at := nativeNesting([]byte(c.src), 8)
			if (at >= 0) != c.deep {
				t.Errorf("nativeNesting = %d, want too deep %v for:\n%s", at, c.deep, c.src)
			}
			if ref := lexerNesting(t, []byte(c.src), 8); ref >= 0 && at < 0 {
				t.Errorf("the lexer's tokens nest deeper than 8, the scanner missed it:\n%s", c.src)
			}
		})
	}
}

func TestNativeNestingOffset(t *testing.T) {
	src := []byte("a = 1\nb = " + strings.Repeat("(", 300) + "1" + strings.Repeat(")", 300) + "\n")
	at := nativeNesting(src, maxNesting)
	if want := bytes.IndexByte(src, '(') + maxNesting; at != want {
		t.Errorf("nativeNesting = %d, want %d (the 257th parenthesis)", at, want)
	}
}

func TestJSONNesting(t *testing.T) {
	for _, c := range []struct {
		name string
		src  string
		deep bool
	}{
		{"arrays", strings.Repeat("[", 9) + strings.Repeat("]", 9), true},
		{"objects", strings.Repeat(`{"a":`, 9) + "1" + strings.Repeat("}", 9), true},
		{"at the limit", strings.Repeat("[", 8) + strings.Repeat("]", 8), false},
		{"brackets in a string", `{"a": "` + strings.Repeat("[", 20) + `"}`, false},
		{"escaped quote", `{"a": "\"` + strings.Repeat("[", 20) + `"}`, false},
		{"template in a string", `{"a": "${` + strings.Repeat("(", 9) + "1" + strings.Repeat(")", 9) + `}"}`, true},
		{"escaped template in a string", `{"a": "\u0024{` + strings.Repeat("(", 9) + "1" + strings.Repeat(")", 9) + `}"}`, true},
		{"template escape in a string", `{"a": "$${` + strings.Repeat("(", 20) + `}"}`, false},
		{"template adds to the depth", strings.Repeat("[", 6) + `"${((1))}"` + strings.Repeat("]", 6), true},
		// U+0600 joins the character after it into one grapheme cluster,
		// so HCL's JSON scanner reads the quote after it as text.
		{"cluster swallows the quote", "{\"a\": \"\u0600\"" + strings.Repeat("[", 9) + `"}`, false},
		{"after the cluster", "{\"a\": \"\u0600\"x\", \"b\": " + strings.Repeat("[", 9) + strings.Repeat("]", 9) + "}", true},
		{"scanner stops at invalid", "{\"a\": 1} @ " + strings.Repeat("[", 9), false},
	} {
		t.Run(c.name, func(t *testing.T) {
			if at := jsonNesting([]byte(c.src), 8); (at >= 0) != c.deep {
				t.Errorf("jsonNesting = %d, want too deep %v for:\n%s", at, c.deep, c.src)
			}
		})
	}
}

// FuzzNesting checks the native scanner against HCL's own lexer: whenever
// the lexer's tokens nest deeper than the limit, the scanner must say so
// too. A scanner that read code as text would let a deep expression
// through to the recursive parser.
func FuzzNesting(f *testing.F) {
	for _, s := range []string{
		"a = ((1))", `a = "${"${x}"}"`, "a = <<EOT\n${(1)}\nEOT\n", `a = "%{if x}%{for y in z}%{endfor}%{endif}"`,
		"a = {for k, v in m : k => -v}", "/* ( */ a = [1, -2]", "a = \"\\\"(\"", "b {\n c = !x ? -1 : 2\n}\n",
		"a = <<-EOT\n  x\n  EOT\n", "a = \"$${(\"", "x = 1e-5 - -1",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		for _, limit := range []int{1, 2, 3, 5} {
			if lexerNesting(t, src, limit) >= 0 && nativeNesting(src, limit) < 0 {
				t.Fatalf("limit %d: the lexer's tokens nest deeper, the scanner missed it:\n%q", limit, src)
			}
		}
	})
}

// lexerNesting is nativeNesting computed over hclsyntax's tokens, with the
// same counting rules: it differs only if the scanner misreads where code
// and text are.
func lexerNesting(t testing.TB, src []byte, limit int) int {
	t.Helper()
	toks, _ := hclsyntax.LexConfig(src, "f.hcl", hcl.InitialPos)
	type frame struct {
		kind byte
		ops  int
	}
	stack := []frame{{kind: frameBody}}
	depth := 0
	pop := func() {
		depth -= 1 + stack[len(stack)-1].ops
		stack = stack[:len(stack)-1]
	}
	word := func(i int) string { // the first identifier at toks[i], past newlines and comments
		for ; i < len(toks); i++ {
			switch toks[i].Type {
			case hclsyntax.TokenNewline, hclsyntax.TokenComment:
				continue
			case hclsyntax.TokenIdent:
				return string(toks[i].Bytes)
			}
			return ""
		}
		return ""
	}
	for i, tok := range toks {
		top := &stack[len(stack)-1]
		push := func(k byte) { stack = append(stack, frame{kind: k}); depth++ }
		switch tok.Type {
		case hclsyntax.TokenOParen, hclsyntax.TokenOBrack:
			push(tok.Bytes[0])
		case hclsyntax.TokenOBrace:
			if word(i+1) == "for" {
				push(frameFor)
			} else {
				push(frameBrace)
			}
		case hclsyntax.TokenOQuote:
			push(frameQuoted)
		case hclsyntax.TokenOHeredoc:
			push(frameHeredoc)
		case hclsyntax.TokenTemplateInterp:
			push(frameSeq)
		case hclsyntax.TokenTemplateControl:
			switch word(i + 1) {
			case "if", "for":
				top.ops++
				depth++
			case "endif", "endfor":
				if top.ops > 0 {
					top.ops--
					depth--
				}
			}
			push(frameSeq)
		case hclsyntax.TokenCParen, hclsyntax.TokenCBrack:
			if top.kind == opener(tok.Bytes[0]) {
				pop()
			}
		case hclsyntax.TokenCBrace, hclsyntax.TokenTemplateSeqEnd:
			for j := len(stack) - 1; j > 0; j-- {
				k := stack[j].kind
				if k == frameBrace || k == frameFor || k == frameSeq {
					for len(stack) > j {
						pop()
					}
					break
				}
				if k != frameParen && k != frameBrack {
					break
				}
			}
		case hclsyntax.TokenCQuote:
			if top.kind == frameQuoted {
				pop()
			}
		case hclsyntax.TokenCHeredoc:
			if top.kind == frameHeredoc {
				pop()
			}
		case hclsyntax.TokenMinus, hclsyntax.TokenQuestion, hclsyntax.TokenBang:
			top.ops++
			depth++
		case hclsyntax.TokenComma:
			depth -= top.ops
			top.ops = 0
		case hclsyntax.TokenNewline, hclsyntax.TokenComment:
			if tok.Type == hclsyntax.TokenComment && !bytes.HasSuffix(tok.Bytes, []byte("\n")) {
				break
			}
			if top.kind == frameBody || top.kind == frameBrace {
				depth -= top.ops
				top.ops = 0
			}
		}
		if depth > limit {
			return tok.Range.Start.Byte
		}
	}
	return -1
}

// deepSpecs are spec files nesting n levels in each way the parsers
// recurse.
func deepSpecs(n int) map[string]string {
	rep := strings.Repeat
	return map[string]string{
		"parentheses.hcl":   "tool \"a\" {\n  description = " + rep("(", n) + "\"x\"" + rep(")", n) + "\n}\n",
		"brackets.hcl":      "x = " + rep("[", n) + rep("]", n) + "\n",
		"objects.hcl":       "x = " + rep("{a = ", n) + "1" + rep("}", n) + "\n",
		"blocks.hcl":        rep("b {\n", n) + rep("}\n", n),
		"calls.hcl":         "x = " + rep("f(", n) + "1" + rep(")", n) + "\n",
		"minus.hcl":         "x = " + rep("-", n) + "1\n",
		"not.hcl":           "x = " + rep("!", n) + "true\n",
		"conditionals.hcl":  "x = " + rep("a ? 1 : ", n) + "2\n",
		"templates.hcl":     "x = " + rep(`"${`, n/2) + "1" + rep(`}"`, n/2) + "\n",
		"directives.hcl":    "x = \"" + rep("%{if a}", n) + rep("%{endif}", n) + "\"\n",
		"heredocs.hcl":      "x = " + rep("<<EOT\n${", n/2) + "1" + rep("}\nEOT\n", n/2),
		"arrays.hcl.json":   rep("[", n) + rep("]", n),
		"objects.hcl.json":  rep(`{"a":`, n) + "1" + rep("}", n),
		"template.hcl.json": `{"tool": {"a": {"description": "${` + rep("(", n-4) + "1" + rep(")", n-4) + `}"}}}`,
	}
}

// TestDeepNesting loads files nested 100,000 levels deep, which used to
// overflow the stack (validate and generate crashed with exit 2): each is
// now one "Nesting too deep" diagnostic where the depth passes the limit.
func TestDeepNesting(t *testing.T) {
	for name, src := range deepSpecs(100000) {
		t.Run(name, func(t *testing.T) {
			spec, _, diags := LoadFiles("deep", map[string][]byte{name: []byte(src)})
			if spec != nil || len(diags) != 1 || diags[0].Summary != "Nesting too deep" {
				t.Fatalf("got %d diagnostics %v, want one Nesting too deep", len(diags), diags)
			}
			if rng := diags[0].Subject; rng == nil || rng.Filename != "deep/"+name || rng.Start.Byte > len(src)/2+16 {
				t.Errorf("range %v, want in deep/%s where the depth passes %d", rng, name, maxNesting)
			}
		})
	}
}

// TestNestingWithinLimit parses and decodes files just under the limit
// with the stack capped at 16 MB (they need less than 4 MB): the limit must
// keep the parsers far from exhausting a stack, not just from Go's 1 GB
// maximum.
func TestNestingWithinLimit(t *testing.T) {
	defer debug.SetMaxStack(debug.SetMaxStack(16 << 20))
	for name, src := range deepSpecs(maxNesting - 2) {
		t.Run(name, func(t *testing.T) {
			if d := checkNesting(name, []byte(src), strings.HasSuffix(name, ".json")); d != nil {
				t.Fatalf("%s: %s", d.Summary, d.Detail)
			}
			// Errors are expected (unknown blocks, tuples for strings);
			// what matters is that parsing and decoding finish.
			LoadFiles("deep", map[string][]byte{name: []byte(src)})
		})
	}
}

// TestDeepLock: the lock file is JSON read by encoding/json, whose own
// limit (10,000 levels) gave "Invalid lock file"; it now stops at the
// same depth as spec files, with its own diagnostic.
func TestDeepLock(t *testing.T) {
	lock := `{"version": 1, "servers": {"s": {"tools": [{"name": "t", "hash": "h", "inputSchema": ` +
		strings.Repeat(`{"a":`, 100000) + "1" + strings.Repeat("}", 100000) + `}]}}}`
	files := map[string][]byte{"main.hcl": []byte("server \"s\" {\n  command = \"x\"\n}\n"), LockFileName: []byte(lock)}
	_, _, diags := LoadFiles("deep", files)
	if len(diags) != 1 || diags[0].Summary != "Nesting too deep" || diags[0].Subject == nil || diags[0].Subject.Filename != "deep/"+LockFileName {
		t.Fatalf("got %v, want one Nesting too deep in the lock file", diags)
	}
}

// BenchmarkNativeNesting scans a 10,000-tool spec (about 3 MB), the size
// of the synthetic generate benchmark: the scan runs before every parse.
func BenchmarkNativeNesting(b *testing.B) {
	var src bytes.Buffer
	for i := range 10000 {
		fmt.Fprintf(&src, "tool \"t%d\" {\n  description = \"Tool %d reads ${x} files (and more) from the workspace.\"\n  keywords    = [\"read\", \"file\", \"t%d\"]\n  input_schema = {\n    type       = \"object\"\n    properties = { path = { type = \"string\", minimum = -1 } }\n  }\n  policy = policy.read\n}\n\n", i, i, i)
	}
	b.SetBytes(int64(src.Len()))
	for b.Loop() {
		if at := nativeNesting(src.Bytes(), maxNesting); at >= 0 {
			b.Fatalf("too deep at %d", at)
		}
	}
}
