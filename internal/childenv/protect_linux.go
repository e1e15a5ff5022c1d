package childenv

import (
	"bytes"
	"fmt"
	"os"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// protect makes the process non-dumpable, so that a child of the same
// user can no longer open /proc/<agent>/environ, mem or fd (exec makes the
// child itself dumpable again), and first wipes the environment block the
// kernel shows there, which a child running as root (CAP_SYS_PTRACE) could
// still read. The Go runtime copied the environment at start, so
// os.Getenv is unaffected; each variable is set again so that a C library
// (cgo) gets its own copies too.
func protect() error {
	var errs []string
	if err := wipeEnvironBlock(); err != nil {
		errs = append(errs, "wipe the environment block: "+err.Error())
	}
	if err := unix.Prctl(unix.PR_SET_DUMPABLE, 0, 0, 0, 0); err != nil {
		errs = append(errs, "PR_SET_DUMPABLE: "+err.Error())
	}
	if errs != nil {
		return fmt.Errorf("%s", strings.Join(errs, "; "))
	}
	return nil
}

// wipeEnvironBlock zeroes env_start..env_end of the process (fields 50 and
// 51 of /proc/self/stat) through /proc/self/mem, which needs no unsafe
// pointer and must happen while the process is still dumpable.
func wipeEnvironBlock() error {
	stat, err := os.ReadFile("/proc/self/stat")
	if err != nil {
		return err
	}
	// The command name (field 2) is in parentheses and may hold spaces.
	i := bytes.LastIndexByte(stat, ')')
	if i < 0 {
		return fmt.Errorf("unexpected /proc/self/stat")
	}
	fields := strings.Fields(string(stat[i+1:])) // fields[0] is field 3
	if len(fields) < 49 {
		return fmt.Errorf("/proc/self/stat has no env_start (kernel before 3.5)")
	}
	start, err1 := strconv.ParseUint(fields[47], 10, 64)
	end, err2 := strconv.ParseUint(fields[48], 10, 64)
	if err1 != nil || err2 != nil || end < start || end-start > 1<<30 {
		return fmt.Errorf("unexpected env_start/env_end in /proc/self/stat")
	}
	if end == start {
		return nil
	}
	env := os.Environ()
	mem, err := os.OpenFile("/proc/self/mem", os.O_WRONLY, 0)
	if err != nil {
		return err
	}
	defer mem.Close()
	if _, err := mem.WriteAt(make([]byte, end-start), int64(start)); err != nil {
		return err
	}
	for _, kv := range env {
		if k, v, ok := strings.Cut(kv, "="); ok && k != "" {
			os.Setenv(k, v) // with cgo, gives libc's environ strings of its own again
		}
	}
	return nil
}
