//go:build unix

package mcpauth

import (
	"os"

	"golang.org/x/sys/unix"
)

// lockFile blocks until this process holds the exclusive lock on f. flock
// locks belong to the open file, so two handles in one process exclude each
// other too, and the kernel drops the lock when a process dies.
func lockFile(f *os.File) error {
	for {
		err := unix.Flock(int(f.Fd()), unix.LOCK_EX)
		if err != unix.EINTR {
			return err
		}
	}
}

func unlockFile(f *os.File) { unix.Flock(int(f.Fd()), unix.LOCK_UN) }
