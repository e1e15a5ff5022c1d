package hostimport

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/tailscale/hujson"
)

// maxDepth bounds how deeply a host file may nest, checked before parsing
// (the parser recurses); real host files nest four or five levels.
const maxDepth = 64

// doc is one parsed host file: JSON with comments and trailing commas, as
// VS Code writes it, with every value's place for diagnostics.
type doc struct {
	name  string
	src   []byte
	lines []int // byte offset of each line's start
	chars []int // characters before each block of blockSize bytes
	root  node
}

// blockSize is the spacing of doc.chars: a column costs at most two
// blockSize scans, however long the line (a minified file is one line).
const blockSize = 512

// node is one JSON value and where it is.
type node struct {
	d *doc
	v *hujson.Value
}

// member is an object member: its key, the key's range and its value.
type member struct {
	key string
	rng hcl.Range
	val node
}

func parseDoc(name string, src []byte) (*doc, hcl.Diagnostics) {
	d := &doc{name: name, src: src, lines: []int{0}}
	n := 0
	for i, c := range src {
		if i%blockSize == 0 {
			d.chars = append(d.chars, n)
		}
		if c == '\n' {
			d.lines = append(d.lines, i+1)
		}
		if c&0xC0 != 0x80 { // not a UTF-8 continuation byte
			n++
		}
	}
	d.chars = append(d.chars, n)
	if off, ok := tooDeep(src); ok {
		r := d.rangeOf(off, off+1)
		return nil, hcl.Diagnostics{{
			Severity: hcl.DiagError,
			Summary:  "Nesting too deep",
			Detail:   fmt.Sprintf("%s nests more than %d levels of objects and arrays here; no MCP host file does, so it is not read.", name, maxDepth),
			Subject:  &r,
		}}
	}
	v, err := hujson.Parse(src)
	if err != nil {
		// hujson reports "line L, column C" in its message only.
		var line, col int
		r := d.rangeOf(0, 0)
		if _, e := fmt.Sscanf(err.Error(), "hujson: line %d, column %d:", &line, &col); e == nil && line >= 1 && line <= len(d.lines) {
			off := min(d.lines[line-1]+col-1, len(src))
			r = d.rangeOf(off, off)
		}
		return nil, hcl.Diagnostics{{
			Severity: hcl.DiagError,
			Summary:  "Invalid JSON",
			Detail:   fmt.Sprintf("%s is not JSON: %s.", name, trimErr(err)),
			Subject:  &r,
		}}
	}
	d.root = node{d, &v}
	return d, nil
}

// trimErr drops hujson's "hujson: line L, column C: " prefix; the range
// says where.
func trimErr(err error) string {
	s := strings.TrimPrefix(err.Error(), "hujson: ")
	if strings.HasPrefix(s, "line ") {
		if i := strings.Index(s, ": "); i >= 0 {
			return s[i+2:]
		}
	}
	return s
}

// tooDeep finds the first bracket past maxDepth, outside strings and
// comments.
func tooDeep(src []byte) (int, bool) {
	depth := 0
	for i := 0; i < len(src); i++ {
		switch c := src[i]; {
		case c == '"':
			for i++; i < len(src) && src[i] != '"'; i++ {
				if src[i] == '\\' {
					i++
				}
			}
		case c == '/' && i+1 < len(src) && src[i+1] == '/':
			for i < len(src) && src[i] != '\n' {
				i++
			}
		case c == '/' && i+1 < len(src) && src[i+1] == '*':
			end := bytes.Index(src[i+2:], []byte("*/"))
			if end < 0 {
				return 0, false // the parser reports it
			}
			i += 2 + end + 1
		case c == '{' || c == '[':
			if depth++; depth > maxDepth {
				return i, true
			}
		case c == '}' || c == ']':
			depth--
		}
	}
	return 0, false
}

func (d *doc) pos(off int) hcl.Pos {
	line := 0
	lo, hi := 0, len(d.lines)-1
	for lo <= hi { // last line start ≤ off
		mid := (lo + hi) / 2
		if d.lines[mid] <= off {
			line, lo = mid, mid+1
		} else {
			hi = mid - 1
		}
	}
	return hcl.Pos{Line: line + 1, Column: d.charsBefore(off) - d.charsBefore(d.lines[line]) + 1, Byte: off}
}

// charsBefore counts the characters (UTF-8 sequences) before off.
func (d *doc) charsBefore(off int) int {
	b := off / blockSize
	n := d.chars[b]
	for _, c := range d.src[b*blockSize : off] {
		if c&0xC0 != 0x80 {
			n++
		}
	}
	return n
}

func (d *doc) rangeOf(start, end int) hcl.Range {
	return hcl.Range{Filename: d.name, Start: d.pos(start), End: d.pos(end)}
}

func (n node) rng() hcl.Range { return n.d.rangeOf(n.v.StartOffset, n.v.EndOffset) }

// kind is the JSON kind: 'n' null, 't' boolean, '"' string, '0' number,
// '{' object, '[' array.
func (n node) kind() byte {
	k := n.v.Value.Kind()
	if k == 'f' {
		return 't'
	}
	return byte(k)
}

func kindName(k byte) string {
	switch k {
	case 'n':
		return "null"
	case 't':
		return "a boolean"
	case '"':
		return "a string"
	case '0':
		return "a number"
	case '{':
		return "an object"
	case '[':
		return "an array"
	}
	return "a value"
}

// str is the string value; ok is false for other kinds.
func (n node) str() (string, bool) {
	lit, ok := n.v.Value.(hujson.Literal)
	if !ok || lit.Kind() != '"' {
		return "", false
	}
	return lit.String(), true
}

// scalar is a string, number or boolean as text (numbers as written).
func (n node) scalar() (string, bool) {
	lit, ok := n.v.Value.(hujson.Literal)
	if !ok || lit.Kind() == 'n' {
		return "", false
	}
	return lit.String(), true
}

func (n node) boolean() (bool, bool) {
	lit, ok := n.v.Value.(hujson.Literal)
	if !ok || (lit.Kind() != 't' && lit.Kind() != 'f') {
		return false, false
	}
	return lit.Bool(), true
}

func (n node) members() []member {
	obj, ok := n.v.Value.(*hujson.Object)
	if !ok {
		return nil
	}
	out := make([]member, len(obj.Members))
	for i := range obj.Members {
		m := &obj.Members[i]
		out[i] = member{
			key: m.Name.Value.(hujson.Literal).String(),
			rng: n.d.rangeOf(m.Name.StartOffset, m.Name.EndOffset),
			val: node{n.d, &m.Value},
		}
	}
	return out
}

func (n node) elements() []node {
	arr, ok := n.v.Value.(*hujson.Array)
	if !ok {
		return nil
	}
	out := make([]node, len(arr.Elements))
	for i := range arr.Elements {
		out[i] = node{n.d, &arr.Elements[i]}
	}
	return out
}
