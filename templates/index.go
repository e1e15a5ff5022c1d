package templates

import (
	"fmt"
	"math"
	"strconv"

	"github.com/dave/jennifer/jen"

	"github.com/toolgen-dev/toolgen/runtime/search"
)

// tablesVar holds the static search tables behind indexVar.
const tablesVar = private + "SearchTables"

// numbersPerLine keeps the big index arrays readable and diffable.
const numbersPerLine = 16

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

	weights, err := floats(t.PostingWeights)
	if err != nil {
		return nil, err
	}
	fields := []struct {
		name  string
		value jen.Code
	}{
		{"Version", jen.Lit(t.Version)},
		{"Names", jen.Lit(t.Names)},
		{"NameIndex", uint32s(t.NameIndex)},
		{"Descriptions", jen.Lit(t.Descriptions)},
		{"DescriptionIndex", uint32s(t.DescriptionIndex)},
		{"Categories", jen.Lit(t.Categories)},
		{"CategoryIndex", uint32s(t.CategoryIndex)},
		{"Keywords", jen.Lit(t.Keywords)},
		{"KeywordIndex", uint32s(t.KeywordIndex)},
		{"DocKeywords", uint32s(t.DocKeywords)},
		{"Params", jen.Lit(t.Params)},
		{"ParamIndex", uint32s(t.ParamIndex)},
		{"DocParams", uint32s(t.DocParams)},
		{"Terms", jen.Lit(t.Terms)},
		{"TermIndex", uint32s(t.TermIndex)},
		{"PostingIndex", uint32s(t.PostingIndex)},
		{"PostingDocs", uint32s(t.PostingDocs)},
		{"PostingWeights", weights},
		{"NameWords", uint8s(t.NameWords)},
		{"PostingNameWords", uint8s(t.PostingNameWords)},
	}
	items := make([]jen.Code, len(fields))
	for i, fl := range fields {
		items[i] = jen.Id(fl.name).Op(":").Add(fl.value)
	}
	f.Var().Id(tablesVar).Op("=").Qual(searchPkg, "Tables").Custom(multiLine, items...)
	return render(f)
}

// uint32s is a []uint32 literal, numbersPerLine values a line.
func uint32s(v []uint32) jen.Code {
	if v == nil {
		return jen.Nil()
	}
	return numberLines(jen.Index().Uint32(), len(v), func(i int) jen.Code {
		return jen.Op(strconv.FormatUint(uint64(v[i]), 10))
	})
}

// uint8s is a []uint8 literal, numbersPerLine values a line.
func uint8s(v []uint8) jen.Code {
	if v == nil {
		return jen.Nil()
	}
	return numberLines(jen.Index().Uint8(), len(v), func(i int) jen.Code {
		return jen.Op(strconv.Itoa(int(v[i])))
	})
}

// floats is a []float32 literal of untyped constants, each the shortest
// decimal that converts back to the same float32.
func floats(v []float32) (jen.Code, error) {
	if v == nil {
		return jen.Nil(), nil
	}
	for i, w := range v {
		if math.IsNaN(float64(w)) || math.IsInf(float64(w), 0) {
			return nil, fmt.Errorf("search tables: posting weight %d is %v", i, w)
		}
	}
	return numberLines(jen.Index().Float32(), len(v), func(i int) jen.Code {
		return jen.Op(strconv.FormatFloat(float64(v[i]), 'g', -1, 32))
	}), nil
}

func numberLines(typ *jen.Statement, n int, item func(int) jen.Code) jen.Code {
	var lines []jen.Code
	for lo := 0; lo < n; lo += numbersPerLine {
		var line []jen.Code
		for i := lo; i < min(n, lo+numbersPerLine); i++ {
			line = append(line, item(i))
		}
		lines = append(lines, jen.List(line...))
	}
	return typ.Custom(multiLine, lines...)
}

// multiLine is a composite literal with one element a line.
var multiLine = jen.Options{Open: "{", Close: "}", Separator: ",", Multi: true}
