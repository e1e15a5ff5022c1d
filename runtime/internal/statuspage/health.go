package statuspage

import (
	"net/http"
	"strings"
)

// healthz: the process is serving. It asks the agent nothing, so that a
// supervisor's probe never waits on a busy session.
func (h *Handler) healthz(w http.ResponseWriter, r *http.Request) {
	select {
	case <-h.done:
		writeJSON(w, http.StatusServiceUnavailable, map[string]string{"status": "stopping"})
	default:
		writeJSON(w, http.StatusOK, map[string]string{"status": "serving"})
	}
}

// readyz: every server the current agent needs is up (green or yellow).
// The body says which are not and why, without what the server wrote on
// stderr (a connection string with its password, say): a probe's body
// ends up in logs of other systems. /api/status, behind the same Host
// check, keeps it.
func (h *Handler) readyz(w http.ResponseWriter, r *http.Request) {
	type server struct {
		Name   string `json:"name"`
		Health string `json:"health"`
		Error  string `json:"error,omitempty"`
	}
	st := h.agent.Status()
	ready := true
	servers := []server{}
	for _, s := range st.Servers {
		if s.Health != Green && s.Health != Yellow {
			ready = false
		}
		servers = append(servers, server{s.Name, s.Health, withoutStderr(s.Error)})
	}
	code := http.StatusOK
	if !ready {
		code = http.StatusServiceUnavailable
	}
	writeJSON(w, code, map[string]any{"ready": ready, "agent": st.Agent, "servers": servers})
}

// stderrMark starts the last stderr lines in a server's failure reason
// (internal/mcpconn's withProcessState).
const stderrMark = "; stderr: "

func withoutStderr(reason string) string {
	if i := strings.Index(reason, stderrMark); i >= 0 {
		return reason[:i]
	}
	return reason
}
