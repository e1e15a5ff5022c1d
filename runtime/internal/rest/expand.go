package rest

import (
	"strconv"
	"strings"

	"github.com/yosida95/uritemplate/v3"
)

// uritemplate/v3 parses and validates templates, and its Value types carry the arguments, but
// its expansion percent-encodes a non-ASCII character by its code point instead of its UTF-8
// bytes ("ã" becomes %E3, and U+1000 loses a byte), so RFC 6570 §3.2.1 expansion is done here.

// operator is one row of RFC 6570 Appendix A.
type operator struct {
	first, sep string
	named      bool
	ifemp      string
	reserved   bool // keep reserved characters and pct-encoded triplets
}

var operators = map[byte]operator{
	0:   {first: "", sep: ","},
	'+': {first: "", sep: ",", reserved: true},
	'#': {first: "#", sep: ",", reserved: true},
	'.': {first: ".", sep: "."},
	'/': {first: "/", sep: "/"},
	';': {first: ";", sep: ";", named: true},
	'?': {first: "?", sep: "&", named: true, ifemp: "="},
	'&': {first: "&", sep: "&", named: true, ifemp: "="},
}

// segment is a literal run of the template or one {expression}.
type segment struct {
	literal string
	op      operator
	vars    []varspec
	query   bool // a {?…} or {&…} expression
}

type varspec struct {
	name    string
	prefix  int // max characters of a string value; 0 for all
	explode bool
}

// compileTemplate splits a template that uritemplate.New has accepted into segments.
func compileTemplate(raw string) []segment {
	var segs []segment
	for raw != "" {
		open := strings.IndexByte(raw, '{')
		if open < 0 {
			segs = append(segs, segment{literal: raw})
			break
		}
		if open > 0 {
			segs = append(segs, segment{literal: raw[:open]})
		}
		end := strings.IndexByte(raw[open:], '}')
		if end < 0 {
			segs = append(segs, segment{literal: raw[open:]}) // unreachable after validation
			break
		}
		body := raw[open+1 : open+end]
		raw = raw[open+end+1:]
		var code byte
		if body != "" && strings.IndexByte("+#./;?&", body[0]) >= 0 {
			code, body = body[0], body[1:]
		}
		seg := segment{op: operators[code], query: code == '?' || code == '&'}
		for _, spec := range strings.Split(body, ",") {
			v := varspec{name: spec}
			if name, ok := strings.CutSuffix(spec, "*"); ok {
				v.name, v.explode = name, true
			} else if name, n, ok := strings.Cut(spec, ":"); ok {
				v.name = name
				v.prefix, _ = strconv.Atoi(n)
			}
			seg.vars = append(seg.vars, v)
		}
		segs = append(segs, seg)
	}
	return segs
}

// expandTemplate expands segments with values; a missing or invalid value is undefined.
func expandTemplate(segs []segment, values uritemplate.Values) string {
	var b strings.Builder
	for _, seg := range segs {
		if seg.vars == nil {
			escape(&b, seg.literal, true)
			continue
		}
		first := true
		for _, spec := range seg.vars {
			v := values.Get(spec.name)
			if !v.Valid() {
				continue
			}
			if first {
				b.WriteString(seg.op.first)
				first = false
			} else {
				b.WriteString(seg.op.sep)
			}
			expandValue(&b, seg.op, spec, v)
		}
	}
	return b.String()
}

func expandValue(b *strings.Builder, op operator, spec varspec, v uritemplate.Value) {
	if v.T == uritemplate.ValueTypeString {
		s := v.V[0]
		if op.named {
			b.WriteString(spec.name)
			if s == "" {
				b.WriteString(op.ifemp)
				return
			}
			b.WriteByte('=')
		}
		if spec.prefix > 0 {
			s = prefixRunes(s, spec.prefix)
		}
		escape(b, s, op.reserved)
		return
	}
	pairs := v.T == uritemplate.ValueTypeKV
	if !spec.explode {
		if op.named {
			b.WriteString(spec.name)
			b.WriteByte('=')
		}
		for i, s := range v.V {
			if i > 0 {
				b.WriteByte(',')
			}
			escape(b, s, op.reserved)
		}
		return
	}
	step := 1
	if pairs {
		step = 2
	}
	for i := 0; i < len(v.V); i += step {
		if i > 0 {
			b.WriteString(op.sep)
		}
		name, s := spec.name, v.V[i]
		if pairs {
			name, s = v.V[i], v.V[i+1]
		}
		if op.named || pairs {
			escape(b, name, op.reserved)
			if s == "" && op.named { // unnamed pairs stay "name=" (RFC 6570 Appendix A)
				b.WriteString(op.ifemp)
				continue
			}
			b.WriteByte('=')
		}
		escape(b, s, op.reserved)
	}
}

func prefixRunes(s string, n int) string {
	for i := range s {
		if n == 0 {
			return s[:i]
		}
		n--
	}
	return s
}

const hexDigits = "0123456789ABCDEF"

// escape writes s with every byte outside the allowed set percent-encoded; multi-byte
// characters are encoded byte by byte as UTF-8, as RFC 6570 §1.6 requires.
func escape(b *strings.Builder, s string, reserved bool) {
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case isUnreserved(c):
			b.WriteByte(c)
		case reserved && strings.IndexByte(":/?#[]@!$&'()*+,;=", c) >= 0:
			b.WriteByte(c)
		case reserved && c == '%' && i+2 < len(s) && isHex(s[i+1]) && isHex(s[i+2]):
			b.WriteString(s[i : i+3])
			i += 2
		default:
			b.WriteByte('%')
			b.WriteByte(hexDigits[c>>4])
			b.WriteByte(hexDigits[c&15])
		}
	}
}

func isUnreserved(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '-' || c == '.' || c == '_' || c == '~'
}

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}
