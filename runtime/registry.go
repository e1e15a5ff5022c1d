package runtime

import "github.com/toolgen-dev/toolgen/runtime/decl"

// Registry is the static description of one spec that toolgen generates
// (package decl holds its definition and the rest of the contract).
type Registry = decl.Registry

// ToolKind says which provider runs a tool (decl.KindGo, decl.KindMCP …).
type ToolKind = decl.ToolKind
