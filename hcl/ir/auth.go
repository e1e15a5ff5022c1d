package ir

import (
	"github.com/hashicorp/hcl/v2"
	"github.com/toolgen-dev/toolgen/runtime/decl"
)

// ServerAuth is a server's auth block: what the registry declares
// (decl.ServerAuth, env() parts kept as names) and where it was written.
type ServerAuth struct {
	decl.ServerAuth
	Range hcl.Range
}
