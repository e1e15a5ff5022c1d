package hcl

import (
	"bytes"
	"encoding/json"
	"unicode/utf8"

	"github.com/apparentlymart/go-textseg/v15/textseg"
	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
)

// maxNesting bounds how deep a spec file or the lock file may nest. HCL's
// parsers recurse once or more for each level of brackets, templates,
// unary operators and conditionals, so a 200 KB file of parentheses used to
// overflow the stack. 256 levels is far more than a spec needs: an input
// schema a hundred objects deep uses about 200.
const maxNesting = 256

// The nesting scanners below read a file once, before it is parsed, and
// return the byte offset at which nesting first exceeds the limit, or -1.
// They follow the lexers exactly where those decide what is code and what
// is text (strings, heredocs, comments, template sequences): text that a
// lexer reads as code must never be skipped here, or a deep expression
// could hide in it. Where the lexers give up on malformed input, the
// scanners carry on and may count more than the parser would see; they
// never count less.

// frame kinds of the native scanner
const (
	frameBody    = 'b' // the top-level body
	frameBrace   = '{' // a block body or an object
	frameFor     = 'f' // {for …}: an object for expression, newlines ignored
	frameParen   = '('
	frameBrack   = '['
	frameSeq     = '$' // ${…} or %{…}: code inside a template
	frameQuoted  = '"'
	frameHeredoc = '<'
	frameBare    = 't' // a whole string read as a template (JSON syntax)
)

type nestFrame struct {
	kind byte
	// ops counts the levels a code frame's current item adds without
	// brackets (unary - and !, and ?), or the open %{if}/%{for}
	// directives of a template frame.
	ops       int
	marker    []byte // heredoc: the closing marker
	lineStart bool   // heredoc: at the start of a line
}

type nestScanner struct {
	src   []byte
	limit int
	stack []nestFrame
	depth int // frames above the first, plus every frame's ops
}

// nativeNesting scans HCL native syntax.
func nativeNesting(src []byte, limit int) int {
	return (&nestScanner{src: src, limit: limit}).run(frameBody)
}

// templateNesting scans a string that HCL reads as a template, as it does
// every string of the JSON syntax.
func templateNesting(s []byte, limit int) int {
	return (&nestScanner{src: s, limit: limit}).run(frameBare)
}

func (s *nestScanner) top() *nestFrame { return &s.stack[len(s.stack)-1] }

// push opens a frame; it reports false when that is one level too many.
func (s *nestScanner) push(f nestFrame) bool {
	s.stack = append(s.stack, f)
	s.depth++
	return s.depth <= s.limit
}

func (s *nestScanner) pop() {
	s.depth -= 1 + s.top().ops
	s.stack = s.stack[:len(s.stack)-1]
}

// addOp counts one more level in the top frame's current item.
func (s *nestScanner) addOp(f *nestFrame) bool {
	f.ops++
	s.depth++
	return s.depth <= s.limit
}

func (s *nestScanner) resetOps() {
	f := s.top()
	s.depth -= f.ops
	f.ops = 0
}

func (s *nestScanner) run(base byte) int {
	s.stack = append(s.stack, nestFrame{kind: base})
	s.depth = 0
	i := 0
	if base == frameBody && bytes.HasPrefix(s.src, []byte("\xef\xbb\xbf")) {
		i = 3 // the lexer drops a leading byte order mark
	}
	for i < len(s.src) {
		var ok bool
		switch s.top().kind {
		case frameQuoted, frameHeredoc, frameBare:
			i, ok = s.template(i)
		default:
			i, ok = s.code(i)
		}
		if !ok {
			return i
		}
	}
	return -1
}

// code reads one token of code at i and returns where the next one starts,
// or i and false when nesting exceeds the limit there.
func (s *nestScanner) code(i int) (int, bool) {
	src := s.src
	c := src[i]
	f := s.top()
	switch {
	case c == '\n':
		// A newline ends an item in a body or an object; elsewhere (inside
		// brackets, template sequences, for expressions) it is ignored.
		if f.kind == frameBody || f.kind == frameBrace {
			s.resetOps()
		}
		return i + 1, true
	case c == ',':
		s.resetOps()
		return i + 1, true
	case c == '#' || c == '/' && i+1 < len(src) && src[i+1] == '/':
		if j := bytes.IndexByte(src[i:], '\n'); j >= 0 {
			return i + j, true // the newline is a token of its own
		}
		return len(src), true
	case c == '/' && i+1 < len(src) && src[i+1] == '*':
		// Ends at the first */; without one the lexer reads / and * as
		// operators and goes on, and so does this.
		if j := bytes.Index(src[i+2:], []byte("*/")); j >= 0 {
			return i + 2 + j + 2, true
		}
		return i + 1, true
	case c == '"':
		return advance(i, i+1, s.push(nestFrame{kind: frameQuoted}))
	case c == '<':
		if marker, next := heredocStart(src, i); next > 0 {
			return advance(i, next, s.push(nestFrame{kind: frameHeredoc, marker: marker, lineStart: true}))
		}
		return i + 1, true
	case c == '{':
		kind := byte(frameBrace)
		if string(firstWord(src, i+1)) == "for" {
			kind = frameFor
		}
		return advance(i, i+1, s.push(nestFrame{kind: kind}))
	case c == '}':
		// The lexer tracks braces only: } closes the innermost { or
		// template sequence, whatever parentheses are still open.
		for j := len(s.stack) - 1; j > 0; j-- {
			k := s.stack[j].kind
			if k == frameBrace || k == frameFor || k == frameSeq {
				for len(s.stack) > j {
					s.pop()
				}
				break
			}
			if k != frameParen && k != frameBrack {
				break
			}
		}
		return i + 1, true
	case c == '(' || c == '[':
		return advance(i, i+1, s.push(nestFrame{kind: c}))
	case c == ')' || c == ']':
		if f.kind == opener(c) {
			s.pop()
		}
		return i + 1, true
	case c == '-' || c == '?':
		return advance(i, i+1, s.addOp(f))
	case c == '!':
		if i+1 < len(src) && src[i+1] == '=' {
			return i + 2, true
		}
		return advance(i, i+1, s.addOp(f))
	case '0' <= c && c <= '9':
		return numberEnd(src, i), true
	case c == '_' || isASCIILetter(c) || c >= utf8.RuneSelf:
		// An identifier, or a byte the lexer rejects: with non-ASCII
		// bytes, the lexer itself says which.
		end := asciiIdentEnd(src, i)
		if end < len(src) && src[end] >= utf8.RuneSelf {
			_, end = lexedToken(src, i)
		}
		return end, true
	}
	return i + 1, true
}

// template reads template text at i, up to and including the next
// sequence opener or closing quote.
func (s *nestScanner) template(i int) (int, bool) {
	src := s.src
	f := s.top()
	if f.kind == frameHeredoc && f.lineStart {
		// A line that is only the marker (and spaces) closes the heredoc;
		// the newline after it is code again.
		end := i
		for end < len(src) && src[end] != '$' && src[end] != '%' && src[end] != '\n' {
			end++
		}
		if end < len(src) && src[end] == '\n' && bytes.Equal(bytes.TrimSpace(src[i:end]), f.marker) {
			s.pop()
			return end, true
		}
		f.lineStart = false
	}
	for i < len(src) {
		switch c := src[i]; c {
		case '"':
			if f.kind == frameQuoted {
				s.pop()
				return i + 1, true
			}
		case '\\':
			// An escape in a quoted string takes the next character, so
			// \" and \${ are text.
			if f.kind == frameQuoted && i+1 < len(src) && src[i+1] != '\n' && src[i+1] != '\r' {
				i += 2
				continue
			}
		case '\n':
			if f.kind == frameHeredoc {
				f.lineStart = true
				return i + 1, true
			}
		case '$', '%':
			if i+2 < len(src) && src[i+1] == c && src[i+2] == '{' {
				i += 3 // $${ and %%{ are text
				continue
			}
			if i+1 < len(src) && src[i+1] == '{' {
				if c == '%' {
					if !s.directive(f, i+2) {
						return i, false
					}
				}
				return advance(i, i+2, s.push(nestFrame{kind: frameSeq}))
			}
		}
		i++
	}
	return i, true
}

// directive counts %{if …} and %{for …} as one more level of the template
// until their %{endif}/%{endfor}: the template parser nests them.
func (s *nestScanner) directive(f *nestFrame, i int) bool {
	if i < len(s.src) && s.src[i] == '~' {
		i++
	}
	switch string(firstWord(s.src, i)) {
	case "if", "for":
		return s.addOp(f)
	case "endif", "endfor":
		if f.ops > 0 {
			f.ops--
			s.depth--
		}
	}
	return true
}

// advance is next and true, or at and false when !ok.
func advance(at, next int, ok bool) (int, bool) {
	if !ok {
		return at, false
	}
	return next, true
}

// opener is the bracket a closing bracket closes.
func opener(c byte) byte {
	switch c {
	case ')':
		return '('
	case ']':
		return '['
	}
	return '{'
}

// heredocStart matches the lexer's heredoc introducer at i: << or <<-, an
// identifier, a newline. It returns the marker and the offset after the
// newline, or 0.
func heredocStart(src []byte, i int) ([]byte, int) {
	j := i + 2
	if j > len(src) || src[i+1] != '<' {
		return nil, 0
	}
	if j < len(src) && src[j] == '-' {
		j++
	}
	end := asciiIdentEnd(src, j)
	if end < len(src) && src[end] >= utf8.RuneSelf {
		// Only the lexer knows which non-ASCII bytes its identifiers take.
		typ, next := lexedToken(src, i)
		if typ != hclsyntax.TokenOHeredoc {
			return nil, 0
		}
		marker := bytes.TrimSuffix(bytes.TrimSuffix(src[j:next], []byte("\n")), []byte("\r"))
		return marker, next
	}
	if end == j || src[j] == '-' || '0' <= src[j] && src[j] <= '9' {
		return nil, 0
	}
	switch {
	case end < len(src) && src[end] == '\n':
		return src[j:end], end + 1
	case end+1 < len(src) && src[end] == '\r' && src[end+1] == '\n':
		return src[j:end], end + 2
	}
	return nil, 0
}

// firstWord is the identifier or keyword the parser reads first at i,
// past spaces, newlines and comments; empty when something else comes
// first.
func firstWord(src []byte, i int) []byte {
	for i < len(src) {
		switch c := src[i]; {
		case c == ' ' || c == '\t' || c == '\r' || c == '\n':
			i++
		case c == '#' || c == '/' && i+1 < len(src) && src[i+1] == '/':
			j := bytes.IndexByte(src[i:], '\n')
			if j < 0 {
				return nil
			}
			i += j
		case c == '/' && i+1 < len(src) && src[i+1] == '*':
			j := bytes.Index(src[i+2:], []byte("*/"))
			if j < 0 {
				return nil
			}
			i += 2 + j + 2
		default:
			return src[i:identEnd(src, i)]
		}
	}
	return nil
}

// identEnd is the end of the identifier (or keyword) starting at i, or i:
// the lexer's (ID_Start | '_') (ID_Continue | '-')*. An identifier with
// non-ASCII bytes is measured by the lexer itself: its Unicode tables are
// its own (they even take some ASCII bytes after a non-ASCII one).
func identEnd(src []byte, i int) int {
	if i >= len(src) {
		return i
	}
	if c := src[i]; c < utf8.RuneSelf && c != '_' && !isASCIILetter(c) {
		return i
	}
	end := asciiIdentEnd(src, i)
	if end < len(src) && src[end] >= utf8.RuneSelf {
		typ, next := lexedToken(src, i)
		if typ != hclsyntax.TokenIdent {
			return i
		}
		return next
	}
	return end
}

// asciiIdentEnd is the end of the run of ASCII identifier bytes at i.
func asciiIdentEnd(src []byte, i int) int {
	for i < len(src) {
		c := src[i]
		if !isASCIILetter(c) && c != '_' && c != '-' && !('0' <= c && c <= '9') {
			break
		}
		i++
	}
	return i
}

func isASCIILetter(c byte) bool { return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' }

// lexedToken returns the type and end of the token HCL's lexer reads at i
// in code.
func lexedToken(src []byte, i int) (hclsyntax.TokenType, int) {
	for w := 64; ; w *= 2 {
		end := min(len(src), i+w)
		// The leading space keeps the lexer from dropping a byte order
		// mark, which it does only at the start of a file.
		window := append([]byte{' '}, src[i:end]...)
		toks, _ := hclsyntax.LexConfig(window, "", hcl.InitialPos)
		tok := toks[0]
		if n := tok.Range.End.Byte - 1; n < end-i || end == len(src) {
			return tok.Type, i + max(n, 1)
		}
	}
}

// numberEnd is the end of the number literal starting at i, whose e-/e+
// exponent signs are not operators.
func numberEnd(src []byte, i int) int {
	for i < len(src) {
		c := src[i]
		switch {
		case '0' <= c && c <= '9' || c == '.':
			i++
		case (c == 'e' || c == 'E') && i+1 < len(src) && '0' <= src[i+1] && src[i+1] <= '9':
			i += 2
		case (c == 'e' || c == 'E') && i+2 < len(src) && (src[i+1] == '+' || src[i+1] == '-') && '0' <= src[i+2] && src[i+2] <= '9':
			i += 3
		default:
			return i
		}
	}
	return i
}

// jsonNesting scans HCL's JSON syntax: objects and arrays, and the
// templates inside strings. Strings end where HCL's JSON scanner ends
// them: at an unescaped quote or a control character, reading whole
// grapheme clusters (a quote can belong to the cluster before it).
func jsonNesting(src []byte, limit int) int {
	return scanJSON(src, limit, true)
}

// lockNesting scans the lock file, plain JSON read by encoding/json.
func lockNesting(src []byte, limit int) int {
	return scanJSON(src, limit, false)
}

func scanJSON(src []byte, limit int, templates bool) int {
	var stack []byte
	for i := 0; i < len(src); {
		switch c := src[i]; {
		case c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == ',' || c == ':' || c == '=':
			i++
		case c == '{' || c == '[':
			stack = append(stack, c)
			if len(stack) > limit {
				return i
			}
			i++
		case c == '}' || c == ']':
			if n := len(stack); n > 0 && stack[n-1] == opener(c) {
				stack = stack[:n-1]
			}
			i++
		case c == '"':
			end := jsonStringEnd(src, i, templates)
			if templates && templateNesting(jsonStringText(src[i:end]), limit-len(stack)-1) >= 0 {
				return i
			}
			i = end
		case c == '-' || c == '+' || c == '.' || '0' <= c && c <= '9' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || c == '_':
			i++ // numbers and keywords
		default:
			return -1 // the JSON scanner stops at anything else
		}
	}
	return -1
}

// jsonStringEnd is the offset after the string starting at i.
func jsonStringEnd(src []byte, i int, graphemes bool) int {
	escaping := false
	for i++; i < len(src); {
		c := src[i]
		switch {
		case c == '\\':
			escaping = !escaping
			i++
		case c == '"':
			i++
			if !escaping {
				return i
			}
			escaping = false
		case c < 0x20:
			return i
		case c >= utf8.RuneSelf && graphemes:
			n, _, _ := textseg.ScanGraphemeClusters(src[i:], true)
			i += max(n, 1)
			escaping = false
		default:
			i++
			escaping = false
		}
	}
	return i
}

// jsonStringText is what a JSON string token reads as, when it may hold a
// template sequence; nil when it cannot.
func jsonStringText(tok []byte) []byte {
	if bytes.IndexByte(tok, '\\') < 0 {
		if bytes.Contains(tok, []byte("${")) || bytes.Contains(tok, []byte("%{")) {
			return tok[1:]
		}
		return nil
	}
	var s string
	if json.Unmarshal(tok, &s) != nil {
		return nil // not a string HCL accepts
	}
	return []byte(s)
}
