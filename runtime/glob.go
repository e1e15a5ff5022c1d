package runtime

import (
	"strings"

	"github.com/toolgen-dev/toolgen/runtime/decl"
)

// globMayReachServer reports whether a use glob could match a tool of a
// server not connected yet: its literal prefix and "<server><sep>" agree.
func globMayReachServer(glob, server, sep string) bool {
	lit, ns := decl.LiteralPrefix(glob), server+sep
	return strings.HasPrefix(lit, ns) || strings.HasPrefix(ns, lit)
}
