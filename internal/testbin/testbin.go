// Package testbin is the TestMain of example packages whose tests run the
// built agent binary: build it once for the whole package, then run.
package testbin

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// Main builds the package in the current directory into a temporary
// binary named name, sets *bin to it and *root to the repository root
// (two levels up: the binary's working directory in the tests), runs m
// and returns its exit code.
func Main(m *testing.M, name string, bin, root *string) int {
	dir, err := os.MkdirTemp("", name+"-test")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(dir)
	*bin = filepath.Join(dir, name)
	build := exec.Command("go", "build", "-o", *bin, ".")
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	if err := build.Run(); err != nil {
		fmt.Fprintf(os.Stderr, "build the %s binary: %v\n", name, err)
		return 1
	}
	if *root, err = filepath.Abs("../.."); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return m.Run()
}
