package search

import "math"

// Tables is an index as plain data: a few strings that toolgen writes into
// index_gen.go as string constants and FromTables reads in place, without
// decoding. Text is packed like stringer's _name/_index; numbers are packed
// the same way, as little-endian bytes: a "u32" field holds uint32s, 4 bytes
// each, a "f32" field float32 bits, a "u8" field one byte a number. A few
// big literals cost the compiler and gofmt almost nothing, where hundreds
// of thousands of numeric literals took seconds.
//
// For a packed text field F with index FIndex, item i is
// F[u32(FIndex, i):u32(FIndex, i+1)]. Documents are sorted by name; a
// document's id is its position.
type Tables struct {
	// Version is the format the tables were written in (TablesVersion).
	Version int

	Names            string
	NameIndex        string // u32, docs+1 offsets
	Descriptions     string
	DescriptionIndex string // u32
	Categories       string
	CategoryIndex    string // u32

	// Keywords and Params are lists per document: DocKeywords[d] to
	// DocKeywords[d+1] are the items of doc d in KeywordIndex.
	Keywords     string
	KeywordIndex string // u32
	DocKeywords  string // u32
	Params       string
	ParamIndex   string // u32
	DocParams    string // u32

	// Terms is the sorted vocabulary. The postings of term i are
	// PostingDocs/PostingWeights[PostingIndex[i]:PostingIndex[i+1]], in
	// doc order. A weight is the saturated, length-normalised field
	// frequency of the term in the doc; search multiplies it by the term's
	// IDF, computed when the query runs from the posting counts, so that
	// tables of documents added later share one IDF with these.
	Terms          string
	TermIndex      string // u32, terms+1 offsets
	PostingIndex   string // u32
	PostingDocs    string // u32
	PostingWeights string // f32

	// NameWords is the number of words in each doc's name, and
	// PostingNameWords how many of them a posting's term stands for (a
	// word's stem, or the word when it has none), for the name-specificity
	// factor of the ranking.
	NameWords        string // u8
	PostingNameWords string // u8

	// FieldLengths is the average length in words of each field over these
	// documents (f32, one per field), so that documents indexed later are
	// normalised against the same lengths.
	FieldLengths string // f32
}

// TablesVersion is the Tables format this package writes. Generated code
// guards it at compile time, after protoimpl.EnforceVersion:
//
//	const _ = search.EnforceVersion(3 - search.MinTablesVersion)
//	const _ = search.EnforceVersion(search.MaxTablesVersion - 3)
//
// so tables written for another format fail to build with an overflow of
// this unsigned type instead of being misread at run time. Version 1 held
// the numbers as Go slices; version 2 had the IDF inside the weights, no
// enrichment field and no field lengths.
const (
	TablesVersion    = 3
	MinTablesVersion = 3
	MaxTablesVersion = 3
)

// EnforceVersion is the type of the compile-time guard above.
type EnforceVersion uint

// u32 is item i of a packed uint32 field. The compiler turns the byte
// loads into one 32-bit load.
func u32(s string, i int) uint32 {
	s = s[4*i : 4*i+4]
	return uint32(s[0]) | uint32(s[1])<<8 | uint32(s[2])<<16 | uint32(s[3])<<24
}

// f32 is item i of a packed float32 field.
func f32(s string, i int) float32 { return math.Float32frombits(u32(s, i)) }

// count32 is the number of items of a packed uint32 or float32 field.
func count32(s string) int { return len(s) / 4 }

func packed(s string, index string, i int) string {
	return s[u32(index, i):u32(index, i+1)]
}

func packedList(s string, index, docs string, d int) []string {
	lo, hi := int(u32(docs, d)), int(u32(docs, d+1))
	if lo == hi {
		return nil
	}
	out := make([]string, 0, hi-lo)
	for i := lo; i < hi; i++ {
		out = append(out, packed(s, index, i))
	}
	return out
}

// appendU32 appends v to a packed uint32 field.
func appendU32(b []byte, v uint32) []byte {
	return append(b, byte(v), byte(v>>8), byte(v>>16), byte(v>>24))
}

// u32s packs v.
func u32s(v []uint32) string {
	b := make([]byte, 0, 4*len(v))
	for _, x := range v {
		b = appendU32(b, x)
	}
	return string(b)
}

// f32s packs v.
func f32s(v []float32) string {
	b := make([]byte, 0, 4*len(v))
	for _, x := range v {
		b = appendU32(b, math.Float32bits(x))
	}
	return string(b)
}

// packer appends strings to one packed string and its index.
type packer struct {
	buf   []byte
	index []byte // u32
	n     uint32
}

func newPacker() *packer { return &packer{index: appendU32(nil, 0)} }

func (p *packer) add(s string) {
	p.buf = append(p.buf, s...)
	p.index = appendU32(p.index, uint32(len(p.buf)))
	p.n++
}

func (p *packer) count() uint32 { return p.n }

// strings returns the packed text and its index.
func (p *packer) strings() (string, string) { return string(p.buf), string(p.index) }
