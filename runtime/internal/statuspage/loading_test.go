package statuspage_test

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/chromedp/chromedp"
)

// Issue 21 item 22: until its first /api/status answered, the page showed
// empty panels under a "…" heading, and then "1 tools". It says it is
// loading in each panel (and not "No calls yet."), then counts in words.
func TestPageLoadingStateAndPlurals(t *testing.T) {
	b := newBackend(t, "reviewer", backendOptions{}) // one tool, no servers
	release := make(chan struct{})
	var once sync.Once
	open := func() { once.Do(func() { close(release) }) }
	t.Cleanup(open)
	// /api/status waits until the test has seen the loading state
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/api/status" {
			select {
			case <-release:
			case <-r.Context().Done():
				return
			}
		}
		b.page.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	ctx := tab(t)
	run(t, ctx, "opening the page", chromedp.Navigate(srv.URL+"/ui/"))
	waitFor(t, ctx, "the page's script", `document.readyState === 'complete'`)

	if got := eval[string](t, ctx, `String(document.body.dataset.loading)`); got != "true" {
		t.Errorf("data-loading = %q before the first status", got)
	}
	shown := eval[[]string](t, ctx, `[...document.querySelectorAll('.loading')].filter(e => e.offsetParent !== null).map(e => e.textContent)`)
	if len(shown) < 4 || !strings.HasPrefix(shown[0], "Loading") {
		t.Errorf("loading notes shown: %q", shown)
	}
	if eval[bool](t, ctx, `document.getElementById('no-calls').offsetParent !== null`) {
		t.Error(`"No calls yet." shown before anything was loaded`)
	}
	if got := eval[string](t, ctx, `String(document.getElementById('agent-name').textContent)`); got == "…" || got == "" {
		t.Errorf("heading %q before the first status", got)
	}

	open()
	waitFor(t, ctx, "the agents", `document.querySelector('#agent-list li[data-agent="reviewer"]') !== null`)
	if got := eval[string](t, ctx, `document.getElementById('summary').textContent`); got != "1 tool" {
		t.Errorf("summary %q, want 1 tool", got)
	}
	if n := eval[int](t, ctx, `[...document.querySelectorAll('.loading')].filter(e => e.offsetParent !== null).length`); n != 0 {
		t.Errorf("%d loading notes still shown", n)
	}
	if got := eval[string](t, ctx, `document.querySelector('main').getAttribute('aria-busy') || ''`); got != "" {
		t.Errorf("aria-busy %q after loading", got)
	}
}
