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
		{"NameIndex", strconv.Quote(t.NameIndex)},
		{"Descriptions", strconv.Quote(t.Descriptions)},
		{"DescriptionIndex", strconv.Quote(t.DescriptionIndex)},
		{"Categories", strconv.Quote(t.Categories)},
		{"CategoryIndex", strconv.Quote(t.CategoryIndex)},
		{"Keywords", strconv.Quote(t.Keywords)},
		{"KeywordIndex", strconv.Quote(t.KeywordIndex)},
		{"DocKeywords", strconv.Quote(t.DocKeywords)},
		{"Params", strconv.Quote(t.Params)},
		{"ParamIndex", strconv.Quote(t.ParamIndex)},
		{"DocParams", strconv.Quote(t.DocParams)},
		{"Terms", strconv.Quote(t.Terms)},
		{"TermIndex", strconv.Quote(t.TermIndex)},
		{"PostingIndex", strconv.Quote(t.PostingIndex)},
		{"PostingDocs", strconv.Quote(t.PostingDocs)},
		{"PostingWeights", strconv.Quote(t.PostingWeights)},
		{"NameWords", strconv.Quote(t.NameWords)},
		{"PostingNameWords", strconv.Quote(t.PostingNameWords)},
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
