package statuspage_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/toolgen-dev/toolgen/runtime/internal/statuspage"
)

// /api/status has exactly the fields issue 13 names, at every level.
func TestStatusShape(t *testing.T) {
	b := newBackend(t, "coder", backendOptions{})
	var raw map[string]any
	getJSON(t, b.url("/api/status"), http.StatusOK, &raw)
	fields := func(v any) []string {
		m, _ := v.(map[string]any)
		var ks []string
		for k := range m {
			ks = append(ks, k)
		}
		sort.Strings(ks)
		return ks
	}
	first := func(key string) any {
		l, _ := raw[key].([]any)
		if len(l) == 0 {
			t.Fatalf("%s is empty", key)
		}
		return l[0]
	}
	for _, c := range []struct {
		what string
		v    any
		want []string
	}{
		{"status", raw, []string{"agent", "agents", "servers", "tools"}},
		{"agents[0]", first("agents"), []string{"description", "name"}},
		{"servers[0]", first("servers"), []string{"error", "health", "name", "tools", "transport"}},
		{"tools[0]", first("tools"), []string{"description", "input_schema", "kind", "name", "namespace", "reason"}},
	} {
		if diff := cmp.Diff(c.want, fields(c.v)); diff != "" {
			t.Errorf("%s fields (-want +got):\n%s", c.what, diff)
		}
	}
	if raw["agent"] != "coder" {
		t.Errorf("agent = %v", raw["agent"])
	}
}

// /api/find answers with the session's own ranking (tool_find's code).
func TestFindIsTheSessionsRanking(t *testing.T) {
	b := newBackend(t, "coder", backendOptions{})
	for _, q := range []string{"echo", "process id of the server", "build warnings", "zzzz unknown words"} {
		var res struct {
			Query   string
			Results []statuspage.Hit
		}
		getJSON(t, b.url("/api/find?limit=5&q="+strings.ReplaceAll(q, " ", "+")), http.StatusOK, &res)
		var got, want []string
		for _, h := range res.Results {
			got = append(got, h.Name)
		}
		for _, h := range b.sess.Find(q, 5) {
			want = append(want, h.Name)
		}
		if res.Query != q || !slices.Equal(got, want) {
			t.Errorf("find %q = %q %v, session ranks %v", q, res.Query, got, want)
		}
	}
	var e struct{ Error string }
	getJSON(t, b.url("/api/find?q=+"), http.StatusBadRequest, &e)
	getJSON(t, b.url("/api/find?q=x&limit=many"), http.StatusBadRequest, &e)
	if !strings.Contains(e.Error, "limit") {
		t.Errorf("bad limit error %q", e.Error)
	}
}

func post(t *testing.T, url string, header map[string]string, body string) (int, string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range header {
		if k == "Host" {
			req.Host = v
			continue
		}
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// POST /api/switch switches only for the page's own origin and a JSON
// body; everything else is refused before the session is asked.
func TestSwitchRefusals(t *testing.T) {
	b := newBackend(t, "coder", backendOptions{})
	own := b.srv.URL
	host := strings.TrimPrefix(own, "http://")
	json := "application/json"
	for _, c := range []struct {
		name   string
		header map[string]string
		body   string
		code   int
		says   string
	}{
		{"no origin", map[string]string{"Content-Type": json}, `{"agent":"reviewer"}`, 403, "Origin header is required"},
		{"other origin", map[string]string{"Origin": "http://evil.example", "Content-Type": json}, `{"agent":"reviewer"}`, 403, "not this page's origin"},
		{"other port", map[string]string{"Origin": "http://127.0.0.1:1", "Content-Type": json}, `{"agent":"reviewer"}`, 403, "not this page's origin"},
		{"https for http", map[string]string{"Origin": "https://" + host, "Content-Type": json}, `{"agent":"reviewer"}`, 403, "not this page's origin"},
		{"cross-site fetch", map[string]string{"Origin": own, "Sec-Fetch-Site": "cross-site", "Content-Type": json}, `{"agent":"reviewer"}`, 403, "another site"},
		{"form", map[string]string{"Origin": own, "Content-Type": "application/x-www-form-urlencoded"}, `agent=reviewer`, 415, "application/json"},
		{"text", map[string]string{"Origin": own, "Content-Type": "text/plain"}, `{"agent":"reviewer"}`, 415, "application/json"},
		{"rebound DNS name", map[string]string{"Host": "evil.example", "Origin": "http://evil.example", "Content-Type": json}, `{"agent":"reviewer"}`, 403, "not one this agent answers to"},
		{"not JSON", map[string]string{"Origin": own, "Content-Type": json}, `agent=reviewer`, 400, "want {"},
		{"two objects", map[string]string{"Origin": own, "Content-Type": json}, `{"agent":"reviewer"}{"agent":"coder"}`, 400, "one JSON object"},
		{"no agent", map[string]string{"Origin": own, "Content-Type": json}, `{}`, 400, "agent is empty"},
		{"unknown agent", map[string]string{"Origin": own, "Content-Type": json + "; charset=utf-8"}, `{"agent":"reviwer"}`, 404, `did you mean \"reviewer\"`},
	} {
		code, body := post(t, b.url("/api/switch"), c.header, c.body)
		if code != c.code || !strings.Contains(body, c.says) {
			t.Errorf("%s: %d %s, want %d saying %q", c.name, code, strings.TrimSpace(body), c.code, c.says)
		}
		if b.sess.Agent() != "coder" {
			t.Fatalf("%s: switched to %s", c.name, b.sess.Agent())
		}
	}
	code, body := post(t, b.url("/api/switch"), map[string]string{"Origin": own, "Content-Type": json, "Sec-Fetch-Site": "same-origin"}, `{"agent":"reviewer"}`)
	if code != http.StatusOK || b.sess.Agent() != "reviewer" || !strings.Contains(body, `"agent":"reviewer"`) {
		t.Errorf("same-origin switch: %d %s; agent %s", code, body, b.sess.Agent())
	}
}

// Every path answers loopback names only (and Options.Hosts); probes
// (/healthz, /readyz, /metrics) also any IP address, never another name:
// a page on a name rebound to 127.0.0.1 reads none of them.
func TestHostCheck(t *testing.T) {
	b := newBackend(t, "coder", backendOptions{metrics: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, "toolgen_up 1\n")
	})})
	get := func(path, host string) int {
		req, _ := http.NewRequest(http.MethodGet, b.url(path), nil)
		req.Host = host
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	port := b.srv.URL[strings.LastIndex(b.srv.URL, ":"):]
	for _, c := range []struct {
		path, host string
		code       int
	}{
		{"/api/status", "127.0.0.1" + port, 200},
		{"/api/status", "localhost" + port, 200},
		{"/api/status", "LOCALHOST.", 200},
		{"/api/status", "[::1]" + port, 200},
		{"/api/status", "127.9.9.9", 200},
		{"/api/status", "evil.example" + port, 403},
		{"/api/status", "127.0.0.1.evil.example", 403},
		{"/ui/", "evil.example", 403},
		{"/api/events", "evil.example", 403},
		{"/ui/", "localhost", 200},
		{"/healthz", "10.1.2.3:8080", 200},
		{"/readyz", "10.1.2.3:8080", 200},
		{"/metrics", "[fd00::1]:8080", 200},
		{"/readyz", "127.0.0.1" + port, 200},
		{"/healthz", "evil.example" + port, 403},
		{"/readyz", "evil.example" + port, 403},
		{"/metrics", "evil.example" + port, 403},
		{"/readyz", "10.1.2.3.evil.example", 403},
		{"/", "evil.example", 403},
		{"/ui", "evil.example", 403},
		{"/nothing", "evil.example", 403},
		{"/api/status", "10.1.2.3", 403},
	} {
		if got := get(c.path, c.host); got != c.code {
			t.Errorf("GET %s with Host %s: %d, want %d", c.path, c.host, got, c.code)
		}
	}
	withHosts := statuspage.New(statuspage.Options{Agent: b.agent, Hosts: []string{"agent.internal"}})
	for host, want := range map[string]int{"agent.internal:8080": 200, "other.internal": 403} {
		req, _ := http.NewRequest(http.MethodGet, "/api/status", nil)
		req.Host = host
		rec := httptest.NewRecorder()
		withHosts.ServeHTTP(rec, req)
		if rec.Code != want {
			t.Errorf("Hosts [agent.internal], Host %s: %d, want %d", host, rec.Code, want)
		}
	}
}

// The page is served with a policy that lets nothing but its own script
// run and keeps it out of frames.
func TestPageHeaders(t *testing.T) {
	b := newBackend(t, "coder", backendOptions{})
	for _, path := range []string{"/ui/", "/ui/app.js", "/ui/style.css"} {
		resp, err := http.Get(b.url(path))
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		csp := resp.Header.Get("Content-Security-Policy")
		if resp.StatusCode != 200 || !strings.Contains(csp, "script-src 'self'") || !strings.Contains(csp, "frame-ancestors 'none'") {
			t.Errorf("%s: %d, CSP %q", path, resp.StatusCode, csp)
		}
	}
	resp, err := http.Get(b.url("/"))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.Request.URL.Path != "/ui/" {
		t.Errorf("/ led to %s, want /ui/", resp.Request.URL.Path)
	}
	var e struct{ Error string }
	getJSON(t, b.url("/api/nothing"), http.StatusNotFound, &e)
}

// /healthz says serving until the handler is closed; /readyz says ready
// with every server up (the red case: TestKilledServerTurnsRedWithoutReload).
func TestHealthAndReady(t *testing.T) {
	b := newBackend(t, "coder", backendOptions{})
	var h struct{ Status string }
	getJSON(t, b.url("/healthz"), http.StatusOK, &h)
	if h.Status != "serving" {
		t.Errorf("/healthz = %+v", h)
	}
	var r struct {
		Ready   bool
		Agent   string
		Servers []struct{ Name, Health string }
	}
	getJSON(t, b.url("/readyz"), http.StatusOK, &r)
	if !r.Ready || r.Agent != "coder" || len(r.Servers) == 0 || r.Servers[0].Health != "green" {
		t.Errorf("/readyz = %+v", r)
	}
	b.page.Close()
	getJSON(t, b.url("/healthz"), http.StatusServiceUnavailable, &h)
	if h.Status != "stopping" {
		t.Errorf("/healthz after Close = %+v", h)
	}
}

// /readyz says why a server is down without its stderr, where a failing
// server may have printed its password; /api/status, behind the Host
// check, keeps it.
func TestReadyzCarriesNoStderr(t *testing.T) {
	b := newBackend(t, "coder", backendOptions{stderrDown: "could not connect: postgres://app:hunter2-db-pass@db/app"})
	var r struct {
		Ready   bool
		Servers []struct{ Name, Health, Error string }
	}
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(50 * time.Millisecond) {
		resp, err := http.Get(b.url("/readyz"))
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if strings.Contains(string(body), "hunter2") {
			t.Fatalf("/readyz carries the server's stderr: %s", body)
		}
		if err := json.Unmarshal(body, &r); err != nil {
			t.Fatal(err)
		}
		if i := slices.IndexFunc(r.Servers, func(s struct{ Name, Health, Error string }) bool { return s.Name == "leaky" }); i >= 0 && r.Servers[i].Health == "red" {
			if r.Ready || r.Servers[i].Error == "" {
				t.Errorf("/readyz = %s", body)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("leaky never turned red: %s", body)
		}
	}
	st := getStatus(t, b)
	i := slices.IndexFunc(st.Servers, func(s statuspage.Server) bool { return s.Name == "leaky" })
	if i < 0 || !strings.Contains(st.Servers[i].Error, "hunter2") {
		t.Errorf("/api/status lost the stderr tail: %+v", st.Servers)
	}
}

// sseEvent is one server-sent event as a client reads it.
type sseEvent struct {
	ID, Type string
	Data     struct {
		Time, Level, Event string
		Attrs              map[string]any
	}
}

// readEvents reads server-sent events until stop says so.
func readEvents(t *testing.T, url, lastID string, stop func(sseEvent) bool) []sseEvent {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if lastID != "" {
		req.Header.Set("Last-Event-ID", lastID)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if ct := resp.Header.Get("Content-Type"); ct != "text/event-stream" {
		t.Fatalf("Content-Type %q", ct)
	}
	var out []sseEvent
	var ev sseEvent
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case line == "":
			if ev.ID != "" || ev.Type != "" {
				out = append(out, ev)
				if stop(ev) {
					return out
				}
			}
			ev = sseEvent{}
		case strings.HasPrefix(line, "id: "):
			ev.ID = line[4:]
		case strings.HasPrefix(line, "event: "):
			ev.Type = line[7:]
		case strings.HasPrefix(line, "data: "):
			if err := json.Unmarshal([]byte(line[6:]), &ev.Data); err != nil {
				t.Fatalf("data %q: %v", line, err)
			}
		}
	}
	t.Fatalf("stream ended: %v", sc.Err())
	return nil
}

// /api/events replays what the hub holds, then streams; a client coming
// back with Last-Event-ID gets only what followed, or a gap event when
// the ring no longer holds it.
func TestEventStream(t *testing.T) {
	b := newBackend(t, "coder", backendOptions{hubSize: 8})
	b.call(t, "alpha__echo", `{"text":"one"}`)
	first := readEvents(t, b.url("/api/events"), "", func(e sseEvent) bool { return e.Data.Event == "tool.call" })
	last := first[len(first)-1]
	if last.Data.Attrs["tool"] != "alpha__echo" || last.Data.Attrs["status"] != "ok" || last.Data.Level != "INFO" || last.Data.Time == "" {
		t.Errorf("tool.call event %+v", last)
	}
	// Live: a call made while the stream is open.
	done := make(chan []sseEvent)
	go func() {
		done <- readEvents(t, b.url("/api/events"), last.ID, func(e sseEvent) bool { return e.Data.Event == "tool.blocked" })
	}()
	b.call(t, "alpha__echo", `{"text":"two"}`)
	b.call(t, "no_such_tool", `{}`)
	resumed := <-done
	var names []string
	for _, e := range resumed {
		names = append(names, e.Data.Event)
	}
	if diff := cmp.Diff([]string{"tool.start", "tool.call", "tool.blocked"}, names); diff != "" {
		t.Errorf("after Last-Event-ID %s (-want +got):\n%s", last.ID, diff)
	}
	// Fall further behind than the ring holds.
	for range 10 {
		b.call(t, "alpha__pid", `{}`)
	}
	gap := readEvents(t, b.url("/api/events"), last.ID, func(sseEvent) bool { return true })
	if gap[0].Type != "gap" {
		t.Errorf("first event after a long absence: %+v, want a gap", gap[0])
	}
}

// Spilled outputs are listed and paged; a handle the agent never made is
// 404, a bad offset 400.
func TestOutputsAPI(t *testing.T) {
	b := newBackend(t, "coder", backendOptions{})
	var list struct{ Outputs []statuspage.Output }
	getJSON(t, b.url("/api/outputs"), http.StatusOK, &list)
	if list.Outputs == nil || len(list.Outputs) != 0 {
		t.Errorf("outputs before any spill: %#v, want []", list.Outputs)
	}
	b.call(t, "build_report", `{}`)
	getJSON(t, b.url("/api/outputs"), http.StatusOK, &list)
	if len(list.Outputs) != 1 || list.Outputs[0].Bytes != len(reportText) {
		t.Fatalf("outputs %+v", list.Outputs)
	}
	h := list.Outputs[0].Handle
	var whole strings.Builder
	for off := 0; ; {
		var p statuspage.Page
		getJSON(t, b.url("/api/outputs/"+h+"?limit=700&offset="+strconv.Itoa(off)), http.StatusOK, &p)
		whole.WriteString(p.Content)
		if p.EOF {
			break
		}
		off = p.NextOffset
	}
	if whole.String() != reportText {
		t.Errorf("pages join into %d bytes, want %d", whole.Len(), len(reportText))
	}
	var e struct{ Error string }
	getJSON(t, b.url("/api/outputs/"+h+"?offset=99999"), http.StatusBadRequest, &e)
	getJSON(t, b.url("/api/outputs/"+h+"?offset=-1"), http.StatusBadRequest, &e)
	getJSON(t, b.url("/api/outputs/..%2F..%2Fetc%2Fpasswd"), http.StatusNotFound, &e)
	getJSON(t, b.url("/api/outputs/nope/output-1.txt"), http.StatusNotFound, &e)
}

// Options.Metrics is served at /metrics.
func TestMetricsMounted(t *testing.T) {
	b := newBackend(t, "coder", backendOptions{metrics: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, "toolgen_up 1\n")
	})})
	resp, err := http.Get(b.url("/metrics"))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if string(body) != "toolgen_up 1\n" {
		t.Errorf("/metrics = %q", body)
	}
}

// HAProxy's httpchk probes with HTTP/1.0 and no Host header: the probes
// answer it (no browser sends a request without Host), the page does not.
func TestProbeWithoutHost(t *testing.T) {
	b := newBackend(t, "coder", backendOptions{})
	addr := strings.TrimPrefix(b.srv.URL, "http://")
	status := func(path string) string {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		fmt.Fprintf(c, "GET %s HTTP/1.0\r\n\r\n", path)
		line, _ := bufio.NewReader(c).ReadString('\n')
		return strings.TrimSpace(line)
	}
	if got := status("/readyz"); !strings.Contains(got, " 200 ") && !strings.Contains(got, " 503 ") {
		t.Errorf("GET /readyz without Host: %q, want the readiness answer", got)
	}
	if got := status("/api/status"); !strings.Contains(got, " 403 ") {
		t.Errorf("GET /api/status without Host: %q, want 403", got)
	}
}
