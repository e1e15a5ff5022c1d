package runtime

import (
	"testing"

	"go.uber.org/goleak"
)

// No test may leave a goroutine behind: sessions, connections, queue
// waiters and abandoned tool calls all end by the time tests finish.
func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }
