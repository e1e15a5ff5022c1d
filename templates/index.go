package templates

import (
	"encoding/binary"
	"fmt"
	"math"

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
	// (see search.Tables), so the file is a handful of long literals.
	fields := []struct {
		name  string
		value jen.Code
	}{
		{"Version", jen.Lit(t.Version)},
		{"Names", jen.Lit(t.Names)},
		{"NameIndex", jen.Lit(t.NameIndex)},
		{"Descriptions", jen.Lit(t.Descriptions)},
		{"DescriptionIndex", jen.Lit(t.DescriptionIndex)},
		{"Categories", jen.Lit(t.Categories)},
		{"CategoryIndex", jen.Lit(t.CategoryIndex)},
		{"Keywords", jen.Lit(t.Keywords)},
		{"KeywordIndex", jen.Lit(t.KeywordIndex)},
		{"DocKeywords", jen.Lit(t.DocKeywords)},
		{"Params", jen.Lit(t.Params)},
		{"ParamIndex", jen.Lit(t.ParamIndex)},
		{"DocParams", jen.Lit(t.DocParams)},
		{"Terms", jen.Lit(t.Terms)},
		{"TermIndex", jen.Lit(t.TermIndex)},
		{"PostingIndex", jen.Lit(t.PostingIndex)},
		{"PostingDocs", jen.Lit(t.PostingDocs)},
		{"PostingWeights", jen.Lit(t.PostingWeights)},
		{"NameWords", jen.Lit(t.NameWords)},
		{"PostingNameWords", jen.Lit(t.PostingNameWords)},
	}
	items := make([]jen.Code, len(fields))
	for i, fl := range fields {
		items[i] = jen.Id(fl.name).Op(":").Add(fl.value)
	}
	f.Var().Id(tablesVar).Op("=").Qual(searchPkg, "Tables").Custom(multiLine, items...)
	return render(f)
}

// multiLine is a composite literal with one element a line.
var multiLine = jen.Options{Open: "{", Close: "}", Separator: ",", Multi: true}

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
