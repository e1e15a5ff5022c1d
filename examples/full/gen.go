// Package full is the example spec that uses every block kind: defaults,
// queues, MCP servers with a lock file (the pinned server-everything over
// stdio, an untrusted scraper over HTTP whose URL comes from env()),
// builtin policies, builtin, REST and Go function tools, direct and meta
// bundles, agents with allowed lists, aliases, globs, discovery,
// sub-agents, spawn and a router, and a workflow. Its generated package is
// generated/full.
//
// full_test.go is the runtime's acceptance test: it drives the generated
// agents through every kind of call against real parts. Run it from a
// checkout where `make npm` ran (server-everything runs from
// testdata/npm, relative to the repository root).
package full

//go:generate go tool toolgen generate -o ../../generated/full ./spec
