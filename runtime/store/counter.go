package store

import "strconv"

// Counters are stored as decimal text, as Redis keeps them, so that one
// key reads the same in every store.
func encodeInt(n int64) []byte { return strconv.AppendInt(nil, n, 10) }

func decodeInt(b []byte) int64 {
	n, _ := strconv.ParseInt(string(b), 10, 64)
	return n
}
