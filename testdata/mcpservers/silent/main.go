// Command silent is a fixture MCP server that never answers initialize: it
// reads stdin and says nothing, so only the startup timeout ends it.
package main

import (
	"io"
	"os"
	"time"
)

func main() {
	io.Copy(io.Discard, os.Stdin)
	time.Sleep(time.Hour) // even after stdin closes: only a signal ends it
}
