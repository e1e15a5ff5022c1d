package childenv

import "sync"

var (
	protectOnce sync.Once
	protectErr  error
)

// Protect keeps the agent's own environment from its children, once per
// process: on Linux the process becomes non-dumpable (a child of the same
// user cannot read /proc/<agent>/environ, mem or fd) and the environment
// block /proc shows is wiped (a child running as root may read past
// non-dumpable). Every child start goes through For, which calls it; an
// agent binary calls it first thing. It returns why protection failed, if
// it did; the process runs on either way.
func Protect() error {
	protectOnce.Do(func() { protectErr = protect() })
	return protectErr
}
