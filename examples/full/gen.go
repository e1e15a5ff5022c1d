// Package full is the example spec that uses every block kind: defaults,
// a queue, MCP servers with a lock file, builtin policies, builtin, REST and
// Go function tools, bundles, agents and a workflow. Its generated package
// is generated/full.
package full

//go:generate go tool toolgen generate -o ../../generated/full ./spec
