package agentcli_test

import (
	"context"
	"os"
	"os/exec"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// The status page tests of the built binary drive Debian's headless
// Chromium, as runtime/internal/statuspage's tests do: one browser per
// test binary, a tab per test.
var browser struct {
	once   sync.Once
	ctx    context.Context
	cancel func()
	dir    string
	err    error
}

func chromiumPath() string {
	for _, p := range []string{"/usr/bin/chromium", "chromium"} {
		if path, err := exec.LookPath(p); err == nil {
			return path
		}
	}
	return ""
}

func startBrowser(path string) {
	browser.dir, browser.err = os.MkdirTemp("", "agentcli-chromium-")
	if browser.err != nil {
		return
	}
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(),
		chromedp.ExecPath(path),
		chromedp.UserDataDir(browser.dir),
		chromedp.Flag("headless", true),
		chromedp.Flag("no-sandbox", true),
		chromedp.Flag("disable-gpu", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("no-first-run", true),
		chromedp.WindowSize(1280, 900),
	)
	ctx, cancelTab := chromedp.NewContext(actx)
	browser.ctx = ctx
	browser.cancel = func() { cancelTab(); cancelAlloc() }
	browser.err = chromedp.Do(ctx)
}

func stopBrowser() {
	if browser.cancel != nil {
		browser.cancel()
	}
	if browser.dir != "" {
		os.RemoveAll(browser.dir)
	}
}

// tab opens a tab, or skips when Chromium is missing and
// TOOLGEN_REQUIRE_BROWSER is unset (make test sets it).
func tab(t *testing.T) context.Context {
	t.Helper()
	path := chromiumPath()
	if path == "" {
		if os.Getenv("TOOLGEN_REQUIRE_BROWSER") != "" {
			t.Fatal("chromium is not installed and TOOLGEN_REQUIRE_BROWSER is set: run `make chromium`")
		}
		t.Skip("chromium is not installed; set TOOLGEN_REQUIRE_BROWSER=1 to fail instead")
	}
	browser.once.Do(func() { startBrowser(path) })
	if browser.err != nil {
		t.Fatalf("starting %s: %v", path, browser.err)
	}
	ctx, cancel := chromedp.NewContext(browser.ctx)
	t.Cleanup(cancel)
	if err := chromedp.Do(ctx); err != nil {
		t.Fatalf("opening a tab: %v", err)
	}
	ctx, stop := context.WithTimeout(ctx, 2*time.Minute)
	t.Cleanup(stop)
	return ctx
}

func do[T any](t *testing.T, ctx context.Context, what string, a chromedp.Action[T]) T {
	t.Helper()
	v, err := chromedp.Run(ctx, a)
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	return v
}

func waitFor(t *testing.T, ctx context.Context, what, predicate string) {
	t.Helper()
	do(t, ctx, "waiting for "+what, chromedp.Poll[chromedp.Void](predicate, chromedp.WithPollingTimeout(90*time.Second)))
}

func eval[T any](t *testing.T, ctx context.Context, expr string) T {
	t.Helper()
	return do(t, ctx, "evaluating "+expr, chromedp.Evaluate[T](expr))
}
