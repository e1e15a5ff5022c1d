package hcl

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/hashicorp/hcl/v2/hclwrite"
	hcljson "github.com/hashicorp/hcl/v2/json"
)

// Format returns the canonical form of one spec file: hclwrite's layout for
// native syntax, two-space indented JSON (key order kept) for *.hcl.json.
// A file that does not parse is returned unchanged with the parse errors,
// so formatting never loses text.
func Format(filename string, src []byte) ([]byte, hcl.Diagnostics) {
	if d := checkNesting(filename, src, strings.HasSuffix(filename, ".json")); d != nil {
		return src, hcl.Diagnostics{d}
	}
	if strings.HasSuffix(filename, ".json") {
		if _, diags := hcljson.Parse(src, filename); diags.HasErrors() {
			return src, diags
		}
		var buf bytes.Buffer
		if err := json.Indent(&buf, bytes.TrimSpace(src), "", "  "); err != nil {
			return src, hcl.Diagnostics{{Severity: hcl.DiagError, Summary: "Invalid JSON", Detail: err.Error()}}
		}
		buf.WriteByte('\n')
		return buf.Bytes(), nil
	}
	if _, diags := hclsyntax.ParseConfig(src, filename, hcl.InitialPos); diags.HasErrors() {
		return src, diags
	}
	return hclwrite.Format(src), nil
}

// ReadSpecFile reads one spec file as the loader does: only a regular
// file (never a named pipe or a device), of at most the spec file size
// limit. Problems are diagnostics at the file.
func ReadSpecFile(path string) ([]byte, hcl.Diagnostics) {
	root, err := os.OpenRoot(filepath.Dir(path))
	if err == nil {
		defer root.Close()
		var b []byte
		if b, err = readRegular(rootFS{root}, filepath.Base(path), maxSpecFileBytes); err == nil {
			return b, nil
		}
	}
	summary, detail := fileProblem("Spec file", path, err)
	return nil, hcl.Diagnostics{{Severity: hcl.DiagError, Summary: summary, Detail: detail, Subject: fileStart(path).Ptr()}}
}
