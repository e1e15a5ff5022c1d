package statuspage_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/google/go-cmp/cmp"
	"github.com/toolgen-dev/toolgen/runtime/internal/eventhub"
	"github.com/toolgen-dev/toolgen/runtime/internal/fleet"
	"github.com/toolgen-dev/toolgen/runtime/internal/statuspage"
	"github.com/toolgen-dev/toolgen/runtime/store"
)

// openPage opens the backend's page in a new tab and waits until it shows
// the agent and its event stream is live.
func openPage(t *testing.T, b *backend) context.Context {
	t.Helper()
	ctx := tab(t)
	run(t, ctx, "opening the page", chromedp.Navigate(b.url("/ui/")))
	waitFor(t, ctx, "the agent list and a live event stream",
		`document.querySelector('#agent-list li') !== null && document.getElementById('conn').dataset.state === 'live'`)
	return ctx
}

// httpServer serves one HTML page on loopback (another origin: another
// port) and returns its URL.
func httpServer(t *testing.T, html string) string {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		io.WriteString(w, html)
	}))
	t.Cleanup(srv.Close)
	return srv.URL + "/"
}

func getStatus(t *testing.T, b *backend) statuspage.Status {
	t.Helper()
	var st statuspage.Status
	getJSON(t, b.url("/api/status"), http.StatusOK, &st)
	return st
}

func getJSON(t *testing.T, url string, wantCode int, v any) {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != wantCode {
		t.Fatalf("GET %s: %s, want %d", url, resp.Status, wantCode)
	}
	if err := json.NewDecoder(resp.Body).Decode(v); err != nil {
		t.Fatalf("GET %s: %v", url, err)
	}
}

type shownAgent struct {
	Name    string
	Current bool
	Button  bool
}

type shownServer struct {
	Name, Health, Text string
}

// The page lists what /api/status says: the agents with the current one
// marked and a switch button on the others, the servers with their
// colour, and every tool.
func TestPageShowsAgentsServersAndTools(t *testing.T) {
	b := newBackend(t, "coder", backendOptions{})
	ctx := openPage(t, b)
	waitFor(t, ctx, "alpha green", `document.querySelector('[data-server="alpha"][data-health="green"]') !== null`)
	st := getStatus(t, b)

	if got := eval[string](t, ctx, `document.getElementById('agent-name').textContent`); got != "coder" {
		t.Errorf("header shows agent %q, want coder", got)
	}
	agents := eval[[]shownAgent](t, ctx, `[...document.querySelectorAll('#agent-list li')].map(li => ({
		Name: li.dataset.agent, Current: li.dataset.current === 'true', Button: li.querySelector('button') !== null}))`)
	wantAgents := []shownAgent{{"coder", true, false}, {"reviewer", false, true}}
	if diff := cmp.Diff(wantAgents, agents); diff != "" {
		t.Errorf("agents shown (-want +got):\n%s", diff)
	}

	servers := eval[[]shownServer](t, ctx, `[...document.querySelectorAll('#server-list li')].map(li => ({
		Name: li.dataset.server, Health: li.dataset.health, Text: li.textContent}))`)
	var names []string
	for _, s := range servers {
		names = append(names, s.Name)
	}
	var wantNames []string
	for _, s := range st.Servers {
		wantNames = append(wantNames, s.Name)
	}
	if diff := cmp.Diff(wantNames, names); diff != "" {
		t.Errorf("servers shown (-api +page):\n%s", diff)
	}
	if len(servers) == 0 || servers[0].Name != "alpha" || !strings.Contains(servers[0].Text, "stdio · 3 tools") || !strings.Contains(servers[0].Text, "green") {
		t.Errorf("alpha shown as %+v, want green, stdio, 3 tools", servers)
	}

	tools := eval[[]string](t, ctx, `[...document.querySelectorAll('#tool-list li')].map(li => li.dataset.tool)`)
	var wantTools []string
	for _, ti := range b.sess.Tools() {
		wantTools = append(wantTools, ti.Name)
	}
	if diff := cmp.Diff(wantTools, tools); diff != "" {
		t.Errorf("tools shown (-session +page):\n%s", diff)
	}
	for _, want := range []string{"alpha__echo", "alpha__pid", "build_report"} {
		if !slices.Contains(tools, want) {
			t.Errorf("tool %s not shown", want)
		}
	}
}

// A server that dies turns red on the open page, with the reason, through
// the event stream alone: the page is never reloaded.
func TestKilledServerTurnsRedWithoutReload(t *testing.T) {
	b := newBackend(t, "coder", backendOptions{})
	ctx := openPage(t, b)
	waitFor(t, ctx, "alpha green", `document.querySelector('[data-server="alpha"][data-health="green"]') !== null`)
	eval[chromedp.Void](t, ctx, `window.sameDocument = true`)

	b.killAlpha(t)
	waitFor(t, ctx, "alpha red", `document.querySelector('[data-server="alpha"][data-health="red"]') !== null`)
	if !eval[bool](t, ctx, `window.sameDocument === true`) {
		t.Error("the page was reloaded")
	}
	reason := eval[string](t, ctx, `document.querySelector('[data-server="alpha"] .reason').textContent`)
	if reason == "" {
		t.Error("no failure reason shown for alpha")
	}
	if !eval[bool](t, ctx, `document.querySelector('#event-list li[data-event="server.fail"]') !== null`) {
		t.Error("the event log does not show server.fail")
	}
	// /readyz agrees: the agent needs alpha, so it is not ready.
	var ready struct {
		Ready   bool
		Servers []struct{ Name, Health, Error string }
	}
	getJSON(t, b.url("/readyz"), http.StatusServiceUnavailable, &ready)
	if ready.Ready || len(ready.Servers) == 0 || ready.Servers[0].Health != "red" || ready.Servers[0].Error == "" {
		t.Errorf("/readyz = %+v, want not ready with alpha red and why", ready)
	}
	t.Logf("alpha's reason on the page: %s", reason)
}

// Clicking another agent's button switches the session: the page marks
// it current, /api/status says so, and the session's subscribers (serve
// sends tools/list_changed from there) heard of it.
func TestSwitchFromThePage(t *testing.T) {
	b := newBackend(t, "coder", backendOptions{})
	changed := make(chan struct{}, 16)
	defer b.sess.Subscribe(func() { changed <- struct{}{} })()
	ctx := openPage(t, b)

	run(t, ctx, "clicking Switch on reviewer", chromedp.Click(chromedp.CSS(`[data-agent="reviewer"] button`)))
	waitFor(t, ctx, "reviewer current", `document.querySelector('[data-agent="reviewer"][data-current="true"]') !== null`)

	if st := getStatus(t, b); st.Agent != "reviewer" {
		t.Errorf("/api/status agent = %q, want reviewer", st.Agent)
	}
	if b.sess.Agent() != "reviewer" {
		t.Errorf("session agent = %q", b.sess.Agent())
	}
	// Switch tells subscribers after the old agent's teardown, which may
	// end after the page already shows the new agent as current.
	select {
	case <-changed:
	case <-time.After(10 * time.Second): // twice the teardown's grace
		t.Error("the session's subscribers were not told of the switch")
	}
	waitFor(t, ctx, "coder's teardown and reviewer's build in the log",
		`[...document.querySelectorAll('#event-list li[data-event="agent.teardown"]')].some(li => li.textContent.includes('agent=coder')) &&
		 [...document.querySelectorAll('#event-list li[data-event="agent.build"]')].some(li => li.textContent.includes('agent=reviewer'))`)
	tools := eval[[]string](t, ctx, `[...document.querySelectorAll('#tool-list li')].map(li => li.dataset.tool)`)
	var want []string
	for _, ti := range b.sess.Tools() {
		want = append(want, ti.Name)
	}
	if diff := cmp.Diff(want, tools); diff != "" || !slices.Contains(tools, "quote") || slices.Contains(tools, "alpha__echo") {
		t.Errorf("tools after the switch (-session +page):\n%s", diff)
	}
	if got := eval[string](t, ctx, `document.getElementById('agent-name').textContent`); got != "reviewer" {
		t.Errorf("header shows %q", got)
	}
	if reqs := b.requests.to("/api/switch"); len(reqs) != 1 || reqs[0].Code != http.StatusOK || reqs[0].Origin != b.srv.URL {
		t.Errorf("switch requests: %+v, want one from %s answered 200", reqs, b.srv.URL)
	}
}

// Another site open in the same browser cannot switch the agent: its
// simple POST (no preflight) is refused for its Origin, and its JSON POST
// never leaves the browser, since the preflight is not granted.
func TestCrossOriginSwitchIsRefused(t *testing.T) {
	b := newBackend(t, "coder", backendOptions{})
	evil := httpServer(t, `<!doctype html><script>
		window.results = [];
		const target = `+"`"+b.url("/api/switch")+"`"+`;
		const body = JSON.stringify({agent: "reviewer"});
		Promise.allSettled([
			fetch(target, {method: "POST", mode: "no-cors", headers: {"Content-Type": "text/plain"}, body}),
			fetch(target, {method: "POST", headers: {"Content-Type": "application/json"}, body}),
		]).then(rs => { window.results = rs.map(r => r.status); window.done = true; });
	</script>`)
	ctx := tab(t)
	run(t, ctx, "opening the other site", chromedp.Navigate(evil))
	waitFor(t, ctx, "the other site's requests", `window.done === true`)
	if got := eval[[]string](t, ctx, `window.results`); !slices.Equal(got, []string{"fulfilled", "rejected"}) {
		t.Errorf("fetch outcomes %v: want the no-cors POST sent (opaque) and the JSON one blocked", got)
	}
	if b.sess.Agent() != "coder" {
		t.Fatalf("agent switched to %q by another site", b.sess.Agent())
	}
	var posts []loggedRequest
	for _, r := range b.requests.to("/api/switch") {
		if r.Method == http.MethodPost {
			posts = append(posts, r)
		}
		if r.Code == http.StatusOK {
			t.Errorf("a cross-origin request was answered 200: %+v", r)
		}
	}
	if len(posts) != 1 || posts[0].Code != http.StatusForbidden || posts[0].Origin == b.srv.URL {
		t.Errorf("cross-origin POSTs: %+v, want one refused with 403", posts)
	}
}

// A call made by the agent shows in the event log (tool.call) and in the
// recent calls with its status and latency; a blocked one too.
func TestEventLogShowsCalls(t *testing.T) {
	b := newBackend(t, "coder", backendOptions{})
	ctx := openPage(t, b)
	if r := b.call(t, "alpha__echo", `{"text":"hello page"}`); !r.OK {
		t.Fatalf("alpha__echo: %+v", r)
	}
	if r := b.call(t, "quote", `{"text":"x"}`); r.OK {
		t.Fatalf("quote is not coder's tool, but the call succeeded: %+v", r)
	}
	waitFor(t, ctx, "tool.call in the log", `document.querySelector('#event-list li[data-event="tool.call"]') !== null`)
	waitFor(t, ctx, "both calls in recent calls", `document.querySelectorAll('#call-list tr').length >= 2`)
	type row struct{ Tool, Status, Latency, IO string }
	rows := eval[[]row](t, ctx, `[...document.querySelectorAll('#call-list tr')].map(tr => ({
		Tool: tr.dataset.tool, Status: tr.dataset.status, Latency: tr.children[3].textContent, IO: tr.children[4].textContent}))`)
	if rows[0].Tool != "quote" || rows[0].Status != "blocked" {
		t.Errorf("newest call row %+v, want quote blocked", rows[0])
	}
	if rows[1].Tool != "alpha__echo" || rows[1].Status != "ok" || !strings.HasSuffix(rows[1].Latency, " ms") || rows[1].IO != "21 / 10" {
		t.Errorf("echo row %+v, want ok, a latency in ms, 21 / 10 chars", rows[1])
	}
	logText := eval[string](t, ctx, `document.querySelector('#event-list li[data-event="tool.call"]').textContent`)
	for _, want := range []string{"tool=alpha__echo", "status=ok", "server=alpha", "latency_ms="} {
		if !strings.Contains(logText, want) {
			t.Errorf("tool.call entry %q lacks %q", logText, want)
		}
	}
}

// The search box ranks with the agent's own finder (/api/find, the code
// of tool_find): the page shows its order. A tool's detail shows its
// parameters, its schema and why the agent has it.
func TestToolSearchAndDetail(t *testing.T) {
	b := newBackend(t, "coder", backendOptions{})
	ctx := openPage(t, b)
	const q = "echo the text back"
	run(t, ctx, "typing a query", chromedp.SendKeys(chromedp.CSS("#tool-search"), q))
	var want []string
	for _, h := range b.sess.Find(q, 20) {
		want = append(want, h.Name)
	}
	if len(want) == 0 || want[0] != "alpha__echo" {
		t.Fatalf("the finder ranks %v for %q; the test expects alpha__echo first", want, q)
	}
	waitFor(t, ctx, "the ranked list", `document.querySelector('#tool-list .score') !== null`)
	got := eval[[]string](t, ctx, `[...document.querySelectorAll('#tool-list li')].map(li => li.dataset.tool)`)
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("page order (-finder +page):\n%s", diff)
	}

	run(t, ctx, "picking the first", chromedp.Click(chromedp.CSS(`#tool-list li[data-tool="alpha__echo"]`)))
	waitFor(t, ctx, "the detail", `document.querySelector('[data-detail="alpha__echo"]') !== null`)
	var tool statuspage.Tool
	for _, tl := range getStatus(t, b).Tools {
		if tl.Name == "alpha__echo" {
			tool = tl
		}
	}
	if got := eval[string](t, ctx, `document.querySelector('#tool-detail [data-reason]').textContent`); got != "Why: "+tool.Reason || tool.Reason == "" {
		t.Errorf("reason shown %q, want %q", got, "Why: "+tool.Reason)
	}
	params := eval[string](t, ctx, `document.querySelector('#tool-detail .params').textContent`)
	if !strings.Contains(params, "text") || !strings.Contains(params, "string, required") {
		t.Errorf("parameters shown as %q", params)
	}
	var shown, api any
	if err := json.Unmarshal([]byte(eval[string](t, ctx, `document.querySelector('#tool-detail [data-schema]').textContent`)), &shown); err != nil {
		t.Fatal(err)
	}
	json.Unmarshal(tool.InputSchema, &api)
	if diff := cmp.Diff(api, shown); diff != "" {
		t.Errorf("schema shown (-api +page):\n%s", diff)
	}
}

// A spilled output is listed; opening it shows its first page and Next
// pages through it to the end, the pages joining into the whole output.
func TestSpilledOutputPaging(t *testing.T) {
	b := newBackend(t, "coder", backendOptions{})
	ctx := openPage(t, b)
	r := b.call(t, "build_report", `{}`)
	if !r.OK || !strings.Contains(r.Result, "tool_output") {
		t.Fatalf("build_report was not spilled: %+v", r)
	}
	waitFor(t, ctx, "the output listed", `document.querySelector('#output-list li[data-handle] button') !== null`)
	run(t, ctx, "opening it", chromedp.Click(chromedp.CSS(`#output-list li[data-handle] button`)))
	var pages []string
	for i := 0; ; i++ {
		waitFor(t, ctx, "a page", `!document.getElementById('viewer').hidden && document.getElementById('viewer-range').textContent.startsWith('bytes ')`)
		pages = append(pages, eval[string](t, ctx, `document.getElementById('viewer-text').textContent`))
		if eval[bool](t, ctx, `document.getElementById('viewer-next').disabled`) {
			break
		}
		if i > 20 {
			t.Fatal("Next never ends")
		}
		before := eval[string](t, ctx, `document.getElementById('viewer-range').textContent`)
		run(t, ctx, "Next", chromedp.Click(chromedp.CSS("#viewer-next")))
		waitFor(t, ctx, "the next page", `document.getElementById('viewer-range').textContent !== `+jsString(before))
	}
	if len(pages) < 2 {
		t.Errorf("%d page(s): the output should take several", len(pages))
	}
	if got := strings.Join(pages, ""); got != reportText {
		t.Errorf("pages join into %d bytes, want the %d-byte report", len(got), len(reportText))
	}
	run(t, ctx, "Previous", chromedp.Click(chromedp.CSS("#viewer-prev")))
	waitFor(t, ctx, "the page before", `document.getElementById('viewer-text').textContent === `+jsString(pages[len(pages)-2]))
}

// Text from servers and specs is shown as text: a description holding
// HTML runs nothing and adds no element.
func TestToolTextIsNeverHTML(t *testing.T) {
	b := newBackend(t, "reviewer", backendOptions{})
	ctx := openPage(t, b)
	run(t, ctx, "picking quote", chromedp.Click(chromedp.CSS(`#tool-list li[data-tool="quote"]`)))
	waitFor(t, ctx, "the detail", `document.querySelector('[data-detail="quote"]') !== null`)
	if got := eval[string](t, ctx, `document.querySelector('#tool-detail .desc').textContent`); got != htmlDescription {
		t.Errorf("description shown as %q", got)
	}
	if n := eval[int](t, ctx, `document.querySelectorAll('main img, main script, main b').length`); n != 0 {
		t.Errorf("%d elements made from tool text", n)
	}
	if title := eval[string](t, ctx, `document.title`); title == "pwned" {
		t.Error("script from a tool description ran")
	}
}

// TestScreenshot writes the README's picture when -screenshot is given:
// the page after a few calls, a spill and a search.
func TestScreenshot(t *testing.T) {
	if *screenshot == "" {
		t.Skip("no -screenshot FILE")
	}
	b := newBackend(t, "coder", backendOptions{down: true})
	ctx := openPage(t, b)
	b.call(t, "alpha__echo", `{"text":"hello"}`)
	b.call(t, "build_report", `{}`)
	b.call(t, "quote", `{"text":"x"}`)
	if _, args := everything(); args != nil {
		b.call(t, "everything__get-sum", `{"a":2,"b":3}`)
	}
	run(t, ctx, "typing a query", chromedp.SendKeys(chromedp.CSS("#tool-search"), "echo text"))
	waitFor(t, ctx, "the ranked list", `document.querySelector('#tool-list .score') !== null`)
	run(t, ctx, "picking a tool", chromedp.Click(chromedp.CSS(`#tool-list li[data-tool="alpha__echo"]`)))
	waitFor(t, ctx, "calls and output", `document.querySelectorAll('#call-list tr').length >= 3 && document.querySelector('#output-list li') !== null`)
	png := run(t, ctx, "screenshot", chromedp.FullScreenshot(100))
	if err := os.MkdirAll(filepath.Dir(*screenshot), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(*screenshot, png, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("wrote %s (%d bytes)", *screenshot, len(png))
}

func jsString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// With a shared store the page shows the fleet: every replica alive with
// its servers' health, and the recent calls of all of them, another
// replica's included (they come through the store, not the event stream).
func TestPageShowsTheFleet(t *testing.T) {
	shared := store.NewMemory()
	other := eventhub.New(eventhub.Options{})
	r2 := fleet.New(fleet.Options{Store: shared, Hub: other, Replica: "r2", Every: time.Hour})
	r2.Start()
	t.Cleanup(r2.Stop)
	b := newBackend(t, "coder", backendOptions{shared: shared})
	if r := b.call(t, "alpha__echo", `{"text":"on r1"}`); !r.OK {
		t.Fatalf("alpha__echo: %+v", r)
	}
	slog.New(other.Handler(nil)).Info("tool.call", "tool", "remote_tool", "status", "ok", "latency_ms", 2.5)
	ctx := openPage(t, b)
	waitFor(t, ctx, "both replicas' calls in the fleet", `document.querySelectorAll('#fleet-call-list tr').length >= 2`)
	type replicaRow struct{ ID, Health, This, Text string }
	reps := eval[[]replicaRow](t, ctx, `[...document.querySelectorAll('#replica-list li')].map(li => ({
		ID: li.dataset.replica, Health: li.dataset.health, This: li.dataset.this, Text: li.textContent}))`)
	if len(reps) != 2 || reps[0].ID != "r1" && reps[1].ID != "r1" {
		t.Fatalf("replicas shown: %+v", reps)
	}
	for _, r := range reps {
		switch r.ID {
		case "r1":
			n := len(b.agent.Servers())
			if r.This != "true" || r.Health != "green" || n == 0 || !strings.Contains(r.Text, fmt.Sprintf("%d of %d server", n, n)) {
				t.Errorf("r1 shown as %+v", r)
			}
		case "r2":
			if r.This != "false" || !strings.Contains(r.Text, "no MCP servers") {
				t.Errorf("r2 shown as %+v", r)
			}
		}
	}
	type callRow struct{ Replica, Tool, Status string }
	calls := eval[[]callRow](t, ctx, `[...document.querySelectorAll('#fleet-call-list tr')].map(tr => ({
		Replica: tr.dataset.replica, Tool: tr.dataset.tool, Status: tr.dataset.status}))`)
	if !slices.Contains(calls, callRow{"r1", "alpha__echo", "ok"}) || !slices.Contains(calls, callRow{"r2", "remote_tool", "ok"}) {
		t.Fatalf("fleet calls shown: %+v", calls)
	}
	if eval[bool](t, ctx, `document.getElementById('fleet').hidden`) {
		t.Fatal("the fleet section is hidden")
	}
}
