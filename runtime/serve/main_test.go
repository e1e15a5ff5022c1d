package serve

import (
	"testing"

	"go.uber.org/goleak"
)

// No goroutine outlives the tests: resync loops, HTTP servers and client
// watchers all end with Close and shutdown.
func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }
