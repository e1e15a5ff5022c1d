package model

import (
	"strings"
	"testing"
)

// A provider the spec knows but the binary does not link is an error that
// says what to import, never a nil Model or a panic.
func TestNewProviderNotLinked(t *testing.T) {
	registryMu.Lock()
	saved := registry
	registry = map[string]func(Config) Model{}
	registryMu.Unlock()
	t.Cleanup(func() {
		registryMu.Lock()
		registry = saved
		registryMu.Unlock()
	})
	_, err := New(Config{Label: "fast", Provider: "anthropic", Name: "claude"})
	if err == nil {
		t.Fatal("New succeeded without the anthropic package linked")
	}
	for _, want := range []string{"model fast (anthropic claude)", "not linked", `"github.com/toolgen-dev/toolgen/runtime/models/anthropic"`} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not mention %q", err, want)
		}
	}
}
