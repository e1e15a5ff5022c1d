package serve

import (
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Extension is an MCP extension that a package adds to the servers this
// package builds. The package registers it from its init, and generated
// code imports the package only when the spec declares what it serves
// (runtime/skills: the Skills extension), so a binary pays only for the
// extensions its spec uses.
type Extension interface {
	// Options declares the extension's capabilities for sess; false: sess
	// has nothing to serve with it, and Install is not called.
	Options(sess Session, opts *mcp.ServerOptions) bool
	// Install adds the extension's methods to the server built with opts.
	Install(sess Session, srv *mcp.Server)
}

var (
	extMu      sync.Mutex
	extensions []Extension
)

// RegisterExtension adds e to every Server built from now on.
func RegisterExtension(e Extension) {
	extMu.Lock()
	defer extMu.Unlock()
	extensions = append(extensions, e)
}

// extensionsFor declares the registered extensions' capabilities for sess
// and returns those that take part.
func extensionsFor(sess Session, opts *mcp.ServerOptions) []Extension {
	extMu.Lock()
	all := append([]Extension(nil), extensions...)
	extMu.Unlock()
	var out []Extension
	for _, e := range all {
		if e.Options(sess, opts) {
			out = append(out, e)
		}
	}
	return out
}
