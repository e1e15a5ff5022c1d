package enrich_test

// The tests run models of both providers; a binary links each provider
// only through its package, as the generated registry does.
import (
	_ "github.com/toolgen-dev/toolgen/runtime/models/anthropic"
	_ "github.com/toolgen-dev/toolgen/runtime/models/openai"
)
