package templates

import (
	"os"
	"testing"
)

func TestDump(t *testing.T) {
	files, diags := Generate(designSpec())
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	for n, b := range files {
		os.WriteFile("/tmp/tg/"+n, b, 0o644)
	}
}
