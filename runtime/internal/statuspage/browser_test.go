package statuspage_test

import (
	"context"
	"os"
	"os/exec"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// One headless Chromium (Debian's package) per test binary: starting it
// takes seconds on two cores. Each test gets a tab of its own.
var browser struct {
	once   sync.Once
	ctx    context.Context // the first tab; the browser lives while it does
	cancel func()
	dir    string // the fresh user-data-dir
	err    error
}

// chromiumPath is the system browser, or "" when it is not installed.
func chromiumPath() string {
	for _, p := range []string{"/usr/bin/chromium", "chromium"} {
		if path, err := exec.LookPath(p); err == nil {
			return path
		}
	}
	return ""
}

func startBrowser(path string) {
	browser.dir, browser.err = os.MkdirTemp("", "statuspage-chromium-")
	if browser.err != nil {
		return
	}
	opts := []chromedp.ExecAllocatorOption{
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
	}
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancelTab := chromedp.NewContext(actx)
	browser.ctx = ctx
	browser.cancel = func() { cancelTab(); cancelAlloc() }
	// The first Run starts the browser; it lives as long as ctx.
	browser.err = chromedp.Do(ctx)
}

// stopBrowser ends Chromium and removes its profile (TestMain).
func stopBrowser() {
	if browser.cancel != nil {
		browser.cancel()
	}
	if browser.dir != "" {
		os.RemoveAll(browser.dir)
	}
}

// tab opens a new tab of the shared browser for this test, or skips when
// Chromium is not installed and TOOLGEN_REQUIRE_BROWSER is unset (make
// test sets it, so a missing browser fails there).
func tab(t *testing.T) context.Context {
	t.Helper()
	path := chromiumPath()
	if path == "" {
		if os.Getenv("TOOLGEN_REQUIRE_BROWSER") != "" {
			t.Fatal("chromium is not installed and TOOLGEN_REQUIRE_BROWSER is set: run `make chromium` (apt-get install chromium)")
		}
		t.Skip("chromium is not installed (make chromium, or apt-get install chromium); set TOOLGEN_REQUIRE_BROWSER=1 to fail instead")
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
	// Bounds every step of the test's browser actions; a failing wait ends
	// with an error rather than hanging the test binary.
	ctx, stop := context.WithTimeout(ctx, 2*time.Minute)
	t.Cleanup(stop)
	return ctx
}

// run is chromedp.Run that fails the test.
func run[T any](t *testing.T, ctx context.Context, what string, a chromedp.Action[T]) T {
	t.Helper()
	v, err := chromedp.Run(ctx, a)
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	return v
}

// waitFor polls a JavaScript predicate in the page until it is truthy.
func waitFor(t *testing.T, ctx context.Context, what, predicate string) {
	t.Helper()
	run(t, ctx, "waiting for "+what, chromedp.Poll[chromedp.Void](predicate, chromedp.WithPollingTimeout(90*time.Second)))
}

// eval evaluates a JavaScript expression in the page.
func eval[T any](t *testing.T, ctx context.Context, expr string) T {
	t.Helper()
	return run(t, ctx, "evaluating "+expr, chromedp.Evaluate[T](expr))
}
