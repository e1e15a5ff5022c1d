// Package search ranks tools for a query. It builds the index that toolgen
// precompiles into index_gen.go and indexes tools discovered at run time.
package search

// Index is an immutable search index over tool documents.
type Index struct{}
