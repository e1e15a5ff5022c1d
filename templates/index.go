package templates

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math"
	"strconv"

	"github.com/dave/jennifer/jen"

	"github.com/toolgen-dev/toolgen/runtime/search"
)

// tablesVar holds the static search tables behind indexVar.
const tablesVar = private + "SearchTables"

// EmitIndex returns the Go source of index_gen.go for package pkg: the
// search tables as static data and indexVar, the index over them, which
// runtime/search opens without rebuilding anything at start-up.
func EmitIndex(pkg string, source string, t search.Tables) ([]byte, error) {
	if t.Version != search.TablesVersion {
		return nil, fmt.Errorf("search tables are format %d, this toolgen writes %d", t.Version, search.TablesVersion)
	}
	f := jen.NewFile(pkg)
	f.HeaderComment(Header[3:])
	f.HeaderComment("source: " + source)
	f.ImportName(searchPkg, "search")

	// Tables written for another format fail to compile here.
	f.Const().Id("_").Op("=").Qual(searchPkg, "EnforceVersion").Call(jen.Lit(t.Version).Op("-").Qual(searchPkg, "MinTablesVersion"))
	f.Const().Id("_").Op("=").Qual(searchPkg, "EnforceVersion").Call(jen.Qual(searchPkg, "MaxTablesVersion").Op("-").Lit(t.Version))
	f.Line()

	f.Comment(indexVar + " is the precompiled search index over the registry's tools.")
	f.Var().Id(indexVar).Op("=").Qual(searchPkg, "FromTables").Call(jen.Op("&").Id(tablesVar))
	f.Line()

	if err := checkWeights(t.PostingWeights); err != nil {
		return nil, err
	}
	// Every field is a string; the numeric ones are packed little-endian
	// (see search.Tables), so the file is a handful of long literals. They
	// are tens of megabytes on big specs, so the value is written as text
	// straight into the file, sized first: no copy of a literal is made on
	// the way, neither parsed nor printed again by go/format.
	fields := []indexField{
		{key: "Version", text: strconv.Itoa(t.Version)},
		{key: "Names", text: strconv.Quote(t.Names)},
		{key: "NameIndex", packed: t.NameIndex},
		{key: "Descriptions", text: strconv.Quote(t.Descriptions)},
		{key: "DescriptionIndex", packed: t.DescriptionIndex},
		{key: "Categories", text: strconv.Quote(t.Categories)},
		{key: "CategoryIndex", packed: t.CategoryIndex},
		{key: "Keywords", text: strconv.Quote(t.Keywords)},
		{key: "KeywordIndex", packed: t.KeywordIndex},
		{key: "DocKeywords", packed: t.DocKeywords},
		{key: "Params", text: strconv.Quote(t.Params)},
		{key: "ParamIndex", packed: t.ParamIndex},
		{key: "DocParams", packed: t.DocParams},
		{key: "Terms", text: strconv.Quote(t.Terms)},
		{key: "TermIndex", packed: t.TermIndex},
		{key: "PostingIndex", packed: t.PostingIndex},
		{key: "PostingDocs", packed: t.PostingDocs},
		{key: "PostingWeights", packed: t.PostingWeights},
		{key: "NameWords", packed: t.NameWords},
		{key: "PostingNameWords", packed: t.PostingNameWords},
		{key: "FieldLengths", packed: t.FieldLengths},
	}
	placeholder := splicePrefix + "SearchTables"
	f.Var().Id(tablesVar).Op("=").Id(placeholder)
	out, err := render(f)
	if err != nil {
		return nil, err
	}
	line := []byte(" = " + placeholder + "\n")
	if bytes.Count(out, line) != 1 {
		return nil, fmt.Errorf("placeholder %s appears %d times", placeholder, bytes.Count(out, line))
	}
	at := bytes.Index(out, line) + len(" = ")
	var size counter
	writeTables(&size, fields)
	file := &byteWriter{b: make([]byte, 0, len(out)-len(placeholder)+int(size))}
	file.b = append(file.b, out[:at]...)
	writeTables(file, fields)
	file.b = append(file.b, out[at+len(placeholder):]...)
	return file.b, nil
}

// indexField is one field of the search.Tables literal: Go text, or bytes
// of packed numbers that quoteBytes would write.
type indexField struct {
	key    string
	text   string
	packed string
}

func (f *indexField) len() int {
	if f.text != "" {
		return len(f.text)
	}
	n := 2
	for i := 0; i < len(f.packed); i++ {
		n += len(byteEscapes[f.packed[i]])
	}
	return n
}

// writeTables writes the search.Tables literal as writeComposite lays it out.
func writeTables(b textWriter, fields []indexField) {
	lens := make([]int, len(fields))
	for i := range fields {
		lens[i] = fields[i].len()
	}
	b.WriteString("search.Tables")
	writeElements(b, len(fields), func(i int) string { return fields[i].key },
		func(i int) bool { return len(fields[i].key)+2+lens[i] <= maxLineSize },
		func(i int) {
			f := &fields[i]
			if f.text != "" {
				b.WriteString(f.text)
				return
			}
			if c, ok := b.(*counter); ok {
				*c += counter(lens[i])
				return
			}
			b.WriteByte('"')
			for j := 0; j < len(f.packed); j++ {
				b.WriteString(byteEscapes[f.packed[j]])
			}
			b.WriteByte('"')
		}, 0)
}

// counter counts the bytes written to it.
type counter int

func (c *counter) WriteString(s string) (int, error) { *c += counter(len(s)); return len(s), nil }
func (c *counter) WriteByte(byte) error              { *c++; return nil }

// byteWriter appends to b.
type byteWriter struct{ b []byte }

func (w *byteWriter) WriteString(s string) (int, error) { w.b = append(w.b, s...); return len(s), nil }
func (w *byteWriter) WriteByte(c byte) error            { w.b = append(w.b, c); return nil }

// checkWeights rejects packed posting weights that are not finite numbers,
// which no ranking could use.
func checkWeights(w string) error {
	if len(w)%4 != 0 {
		return fmt.Errorf("search tables: posting weights are %d bytes, not whole float32s", len(w))
	}
	for i := 0; i < len(w); i += 4 {
		v := float64(math.Float32frombits(binary.LittleEndian.Uint32([]byte(w[i : i+4]))))
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("search tables: posting weight %d is %v", i/4, v)
		}
	}
	return nil
}

// quoteBytes is a Go string literal of the bytes of packed numbers:
// printable ASCII as is, other bytes escaped, as strconv.Quote would but
// byte by byte (these bytes are not text) and several times faster.
func quoteBytes(s string) string {
	b := make([]byte, 0, 2+3*len(s))
	b = append(b, '"')
	for i := 0; i < len(s); i++ {
		b = append(b, byteEscapes[s[i]]...)
	}
	return string(append(b, '"'))
}

// byteEscapes is how quoteBytes writes each byte.
var byteEscapes = func() (t [256]string) {
	for c := range t {
		switch {
		case c == '"' || c == '\\':
			t[c] = `\` + string(rune(c))
		case c >= 0x20 && c < 0x7f:
			t[c] = string(rune(c))
		default:
			t[c] = fmt.Sprintf(`\x%02x`, c)
		}
	}
	t['\a'], t['\b'], t['\f'], t['\n'], t['\r'], t['\t'], t['\v'] = `\a`, `\b`, `\f`, `\n`, `\r`, `\t`, `\v`
	return t
}()
