package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/toolgen-dev/toolgen/runtime/store/redis/redistest"
)

var (
	budgetedOnce sync.Once
	budgetedBin  string
	budgetedErr  error
)

// budgetedBinary builds ../replicasbudget: the replicas agent with a context
// budget (its spec's defaults).
func budgetedBinary(t *testing.T) string {
	t.Helper()
	budgetedOnce.Do(func() {
		dir, err := os.MkdirTemp("", "replicas-budgeted-")
		if err != nil {
			budgetedErr = err
			return
		}
		budgetedBin = filepath.Join(dir, "replicas-budgeted")
		out, err := exec.Command("go", "build", "-o", budgetedBin, "../replicasbudget").CombinedOutput()
		if err != nil {
			budgetedErr = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if budgetedErr != nil {
		t.Fatal(budgetedErr)
	}
	return budgetedBin
}

// budgetTokens is ../replicasbudget/spec's context_budget.
const budgetTokens = 2000

// A context budget of N tokens per caller is never exceeded across 3
// replicas: of 3 budgets' worth of concurrent calls through the balancer,
// exactly those that fit succeed, whichever replica took them, and the
// rest are refused for the budget.
func TestFleetBudgetHolds(t *testing.T) {
	redistest.Need(t, "redis-server", "haproxy")
	srv := redistest.Start(t)
	f := startFleetOf(t, budgetedBinary(t), 3, nil, "--store", srv.URL(), "--budget-window", "1h")
	text := strings.Repeat("x", 380)
	// Each answer is "TEXT (replica rN)", counted as bytes/4 rounded up.
	perCall := (len(text) + len(" (replica r1)") + 3) / 4
	fits := budgetTokens / perCall
	var ok, refused atomic.Int64
	var wg sync.WaitGroup
	sem := make(chan struct{}, 12)
	for i := range 3 * fits {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			r := callTool(f.lb, "echo", map[string]string{"text": text})
			switch {
			case r.Err != nil:
				t.Errorf("call %d: %v", i, r.Err)
			case !r.IsError:
				ok.Add(1)
			case strings.Contains(r.Text, "context window budget exceeded"):
				refused.Add(1)
			default:
				t.Errorf("call %d: %s", i, r.Text)
			}
		}()
	}
	wg.Wait()
	if ok.Load() != int64(fits) || refused.Load() != int64(2*fits) {
		t.Fatalf("%d calls succeeded and %d were refused for the budget; want exactly %d and %d (%d tokens of %d each)",
			ok.Load(), refused.Load(), fits, 2*fits, budgetTokens, perCall)
	}
	// Each replica served some of them: the budget is the fleet's.
	for _, r := range f.replicas {
		if !strings.Contains(r.log.waitFor("tool.call"), "tool.call") {
			t.Errorf("replica %s logged no call:\n%s", r.name, r.log)
		}
	}
}
