package search_test

import (
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"math"
	"testing"

	"github.com/toolgen-dev/toolgen/runtime/search"
)

// rankingDigest is a SHA-256 over every hit (name and score bits) of the
// top 10 of each query on x.
func rankingDigest(x *search.Index, queries []string, keep func(string) bool) string {
	h := sha256.New()
	var b [4]byte
	for _, q := range queries {
		for _, hit := range x.SearchFunc(q, 10, keep) {
			h.Write([]byte(hit.Name))
			binary.LittleEndian.PutUint32(b[:], math.Float32bits(float32(hit.Score)))
			h.Write(b[:])
		}
		h.Write([]byte{0})
	}
	return fmt.Sprintf("%x", h.Sum(nil))
}

// TestRankingUnchanged pins every top-10 hit and its score, to the bit,
// on the enriched toolret catalog (toolret and paraphrase queries) and on
// a 10,000-tool catalog enriched from it (toolret queries), and on the
// toolret catalog in three tiers with a filter: a change to
// how the search runs must not move a single score, and a change to the
// scoring shows here first, to be measured with make eval before the
// digests are renewed.
func TestRankingUnchanged(t *testing.T) {
	set, para := loadEnriched(t)
	var toolret, all []string
	for _, q := range set.Queries {
		toolret = append(toolret, q.Text)
	}
	all = append(all, toolret...)
	for _, q := range para {
		all = append(all, q.Text)
	}
	var base, late []search.Doc
	for i, d := range set.Docs {
		if i%7 == 3 {
			late = append(late, d)
		} else {
			base = append(base, d)
		}
	}
	tiered := search.Build(base).With(late[:len(late)/2]...).With(late[len(late)/2:]...)
	odd := func(name string) bool { return len(name)%2 == 1 }
	big := search.Build(enrich(set.Docs, synthetic(set.Docs, 10000)))
	for _, c := range []struct {
		name    string
		x       *search.Index
		queries []string
		keep    func(string) bool
		want    string
	}{
		{"toolret", search.Build(set.Docs), all, nil, "c9f3de6bc8255ee3f97322b157c3172c12850f52aa347265948890e4a57fa820"},
		{"10k", big, toolret, nil, "58a437670cd67d273be4c06fb762343f8a2f4c2cfe51c347e40d4b981a02e3e6"},
		{"tiers", tiered, all, odd, "8722000569b7c8c04f727890074ddc4de58a33b33f126929ce5f57db4f25a577"},
	} {
		if got := rankingDigest(c.x, c.queries, c.keep); got != c.want {
			t.Errorf("%s: ranking digest %s, want %s", c.name, got, c.want)
		}
	}
}
