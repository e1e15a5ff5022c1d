//go:build !linux

package agentcli

import "os"

// pollablePipe is f when its I/O already waits in the netpoller; other
// systems have no /proc to open a pipe again through.
func pollablePipe(f *os.File, mode int) (*os.File, bool) { return f, pollable(f) }
