//go:build !linux

package agentcli

import "os"

// pollablePipe is f when its reads already wait in the netpoller; other
// systems have no /proc to open a pipe again through.
func pollablePipe(f *os.File) (*os.File, bool) { return f, pollable(f) }
