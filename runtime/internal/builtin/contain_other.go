//go:build !linux

package builtin

import (
	"os"
	"sync"
	"syscall"
)

var defaultContainment = sync.OnceValue(func() containment { return pgroupContainment{} })

func procAttr() *syscall.SysProcAttr { return &syscall.SysProcAttr{Setsid: true} }

// startDir is the checked directory's path: only Linux lets a child start in an open directory
// (see contain_linux.go), so elsewhere a symlink swapped after the check can still move it.
func startDir(_ *os.File, path string) (string, error) { return path, nil }
