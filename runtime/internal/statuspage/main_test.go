package statuspage_test

import (
	"flag"
	"fmt"
	"os"
	"testing"
)

var screenshot = flag.String("screenshot", "", "write a PNG of the page to this file (the README's picture: ../../../docs/statuspage.png)")

func TestMain(m *testing.M) {
	flag.Parse()
	dir, err := buildFixture()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.RemoveAll(dir)
		os.Exit(1)
	}
	code := m.Run()
	stopBrowser()
	os.RemoveAll(dir)
	os.Exit(code)
}
