package templates

import (
	"encoding/binary"
	"fmt"
	"math"
	"strconv"
	"strings"

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
	// are megabytes on big specs, so the value is written as text and
	// spliced in rather than parsed and printed again by go/format.
	fields := []element{
		{"Version", strconv.Itoa(t.Version)},
		{"Names", strconv.Quote(t.Names)},
		{"NameIndex", quoteBytes(t.NameIndex)},
		{"Descriptions", strconv.Quote(t.Descriptions)},
		{"DescriptionIndex", quoteBytes(t.DescriptionIndex)},
		{"Categories", strconv.Quote(t.Categories)},
		{"CategoryIndex", quoteBytes(t.CategoryIndex)},
		{"Keywords", strconv.Quote(t.Keywords)},
		{"KeywordIndex", quoteBytes(t.KeywordIndex)},
		{"DocKeywords", quoteBytes(t.DocKeywords)},
		{"Params", strconv.Quote(t.Params)},
		{"ParamIndex", quoteBytes(t.ParamIndex)},
		{"DocParams", quoteBytes(t.DocParams)},
		{"Terms", strconv.Quote(t.Terms)},
		{"TermIndex", quoteBytes(t.TermIndex)},
		{"PostingIndex", quoteBytes(t.PostingIndex)},
		{"PostingDocs", quoteBytes(t.PostingDocs)},
		{"PostingWeights", quoteBytes(t.PostingWeights)},
		{"NameWords", quoteBytes(t.NameWords)},
		{"PostingNameWords", quoteBytes(t.PostingNameWords)},
		{"FieldLengths", quoteBytes(t.FieldLengths)},
	}
	var value strings.Builder
	value.WriteString("search.Tables")
	if err := writeComposite(&value, fields, true, 0); err != nil {
		return nil, err
	}
	placeholder := splicePrefix + "SearchTables"
	f.Var().Id(tablesVar).Op("=").Id(placeholder)
	out, err := render(f)
	if err != nil {
		return nil, err
	}
	s := &splices{text: map[string]string{placeholder: value.String()}}
	return s.splice(out)
}

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
