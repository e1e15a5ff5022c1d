package model_test

// The tests ask both providers; a binary links each only through its
// package, as the generated registry does.
import (
	_ "github.com/toolgen-dev/toolgen/runtime/models/anthropic"
	_ "github.com/toolgen-dev/toolgen/runtime/models/openai"
)
