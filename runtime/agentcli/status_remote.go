package agentcli

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/toolgen-dev/toolgen/runtime/internal/statuspage"
)

// statusURL turns --addr (host:port, or a URL of the running agent) into
// its /api/status URL.
func statusURL(addr string) (string, error) {
	if !strings.Contains(addr, "://") {
		addr = "http://" + addr
	}
	u, err := url.Parse(addr)
	if err != nil || u.Host == "" || (u.Scheme != "http" && u.Scheme != "https") {
		return "", fmt.Errorf("--addr %q: want HOST:PORT or http://HOST:PORT, where the agent serves its status page", addr)
	}
	u.Path, u.RawQuery, u.Fragment = "/api/status", "", ""
	return u.String(), nil
}

// remoteStatus reads a running agent's /api/status (serve --http, or serve
// --stdio --ui): the servers as that process sees them, not a fresh copy.
func (c *cli) remoteStatus(addr string, asJSON bool) int {
	u, err := statusURL(addr)
	if err != nil {
		return c.fail(exitUsage, err)
	}
	ctx, cancel := context.WithTimeout(c.ctx, 10*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return c.fail(exitFail, err)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return c.fail(exitFail, fmt.Errorf("no running agent answers at %s: %w", u, err))
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 16<<20))
	if err != nil {
		return c.fail(exitFail, fmt.Errorf("reading %s: %w", u, err))
	}
	if resp.StatusCode != http.StatusOK {
		var e struct{ Error string }
		_ = json.Unmarshal(body, &e)
		if e.Error == "" {
			e.Error = strings.TrimSpace(string(body))
		}
		return c.fail(exitFail, fmt.Errorf("%s answered %s: %s", u, resp.Status, summary(e.Error, 200)))
	}
	var st statuspage.Status
	if err := json.Unmarshal(body, &st); err != nil {
		return c.fail(exitFail, fmt.Errorf("%s is not a toolgen agent's status: %w", u, err))
	}
	red := slices.ContainsFunc(st.Servers, func(s statuspage.Server) bool { return s.Health == "red" })
	if asJSON {
		type serverJSON struct {
			Name   string `json:"name"`
			Health string `json:"health"`
			Tools  int    `json:"tools"`
			Error  string `json:"error,omitempty"`
		}
		out := make([]serverJSON, len(st.Servers))
		for i, s := range st.Servers {
			out[i] = serverJSON{s.Name, s.Health, s.Tools, s.Error}
		}
		return redExit(c.printJSON(out), red)
	}
	fmt.Fprintf(c.stdout, "agent %s (running at %s): %d tools\n", st.Agent, strings.TrimSuffix(u, "/api/status"), len(st.Tools))
	if len(st.Servers) == 0 {
		fmt.Fprintln(c.stdout, "no MCP servers")
		return exitOK
	}
	tw := tabwriter.NewWriter(c.stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "SERVER\tHEALTH\tTOOLS\tERROR")
	for _, s := range st.Servers {
		fmt.Fprintf(tw, "%s\t%s\t%d\t%s\n", s.Name, s.Health, s.Tools, summary(s.Error, 100))
	}
	tw.Flush()
	return redExit(exitOK, red)
}
