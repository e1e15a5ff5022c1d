package cmd

import (
	"bytes"
	"strings"
	"testing"
)

// Go tools are checked against the package the code is written to (-o), not
// the spec directory: generating into a tool's own package is an error.
func TestGenerateChecksGoToolsAgainstOutDir(t *testing.T) {
	var stdout, stderr bytes.Buffer
	code := run([]string{"generate", "--check", "-o", "../../examples/full/tools", "../../examples/full/spec"}, &stdout, &stderr)
	if code != exitDiags || !strings.Contains(stderr.String(), "Go tool in the generated package") {
		t.Errorf("exit %d, stderr:\n%s", code, stderr.String())
	}
}
