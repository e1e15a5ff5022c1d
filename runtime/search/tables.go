package search

// Tables is an index as plain data: packed strings with offset arrays (like
// stringer's _name/_index) and flat posting lists. toolgen writes it into
// index_gen.go as static data; FromTables reads it in place.
//
// For a packed field F with index FIndex, item i is F[FIndex[i]:FIndex[i+1]].
// Documents are sorted by name; a document's id is its position.
type Tables struct {
	// Version is the format the tables were written in (TablesVersion).
	Version int

	Names            string
	NameIndex        []uint32 // len docs+1
	Descriptions     string
	DescriptionIndex []uint32
	Categories       string
	CategoryIndex    []uint32

	// Keywords and Params are lists per document: DocKeywords[d] to
	// DocKeywords[d+1] are the items of doc d in KeywordIndex.
	Keywords     string
	KeywordIndex []uint32
	DocKeywords  []uint32
	Params       string
	ParamIndex   []uint32
	DocParams    []uint32

	// Terms is the sorted vocabulary. The postings of term i are
	// PostingDocs/PostingWeights[PostingIndex[i]:PostingIndex[i+1]], in
	// doc order. A weight is the term's whole contribution to the doc's
	// score: IDF times the saturated, length-normalised field frequency.
	Terms          string
	TermIndex      []uint32 // len terms+1
	PostingIndex   []uint32
	PostingDocs    []uint32
	PostingWeights []float32

	// NameWords is the number of words in each doc's name, and
	// PostingNameWords how many of them a posting's term stands for (a
	// word's stem, or the word when it has none), for the name-specificity
	// factor of the ranking.
	NameWords        []uint8
	PostingNameWords []uint8
}

// TablesVersion is the Tables format this package writes. Generated code
// guards it at compile time, after protoimpl.EnforceVersion:
//
//	const _ = search.EnforceVersion(1 - search.MinTablesVersion)
//	const _ = search.EnforceVersion(search.MaxTablesVersion - 1)
//
// so tables written for another format fail to build with an overflow of
// this unsigned type instead of being misread at run time.
const (
	TablesVersion    = 1
	MinTablesVersion = 1
	MaxTablesVersion = 1
)

// EnforceVersion is the type of the compile-time guard above.
type EnforceVersion uint

func packed(s string, index []uint32, i int) string {
	return s[index[i]:index[i+1]]
}

func packedList(s string, index, docs []uint32, d int) []string {
	lo, hi := docs[d], docs[d+1]
	if lo == hi {
		return nil
	}
	out := make([]string, 0, hi-lo)
	for i := lo; i < hi; i++ {
		out = append(out, packed(s, index, int(i)))
	}
	return out
}

// packer appends strings to one packed string and its index.
type packer struct {
	buf   []byte
	index []uint32
}

func newPacker() *packer { return &packer{index: []uint32{0}} }

func (p *packer) add(s string) {
	p.buf = append(p.buf, s...)
	p.index = append(p.index, uint32(len(p.buf)))
}

func (p *packer) count() uint32 { return uint32(len(p.index) - 1) }
