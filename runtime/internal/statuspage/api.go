package statuspage

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"slices"
	"strconv"
	"strings"
)

func (h *Handler) status(w http.ResponseWriter, r *http.Request) {
	st := h.agent.Status()
	// Lists are [] rather than null, so that scripts can range over them.
	if st.Agents == nil {
		st.Agents = []AgentInfo{}
	}
	if st.Servers == nil {
		st.Servers = []Server{}
	}
	if st.Tools == nil {
		st.Tools = []Tool{}
	}
	if h.fleet != nil {
		f := h.fleet.Fleet(r.Context())
		st.Fleet = &f
	}
	writeJSON(w, http.StatusOK, st)
}

const (
	defaultFindLimit = 10
	maxFindLimit     = 100
)

func (h *Handler) find(w http.ResponseWriter, r *http.Request) {
	q := strings.TrimSpace(r.URL.Query().Get("q"))
	if q == "" {
		writeError(w, http.StatusBadRequest, "q is empty: say what the tool should do")
		return
	}
	limit, err := intParam(r, "limit", defaultFindLimit)
	if err != nil {
		writeError(w, http.StatusBadRequest, err.Error())
		return
	}
	limit = min(max(limit, 1), maxFindLimit)
	hits := h.agent.Find(q, limit)
	if hits == nil {
		hits = []Hit{}
	}
	writeJSON(w, http.StatusOK, map[string]any{"query": q, "results": hits})
}

// maxSwitchBody is far more than {"agent": NAME} needs.
const maxSwitchBody = 4 << 10

func (h *Handler) switchAgent(w http.ResponseWriter, r *http.Request) {
	if why := sameOrigin(r); why != "" {
		h.log.Warn("statuspage.refused", "path", r.URL.Path, "reason", why)
		writeError(w, http.StatusForbidden, "switch refused: "+why)
		return
	}
	if !isJSON(r) {
		writeError(w, http.StatusUnsupportedMediaType, "switch needs Content-Type: application/json")
		return
	}
	var body struct {
		Agent string `json:"agent"`
	}
	dec := json.NewDecoder(http.MaxBytesReader(w, r.Body, maxSwitchBody))
	if err := dec.Decode(&body); err != nil {
		writeError(w, http.StatusBadRequest, `want {"agent": NAME}: `+err.Error())
		return
	}
	if _, err := dec.Token(); err != io.EOF {
		writeError(w, http.StatusBadRequest, `want one JSON object {"agent": NAME}`)
		return
	}
	if body.Agent == "" {
		writeError(w, http.StatusBadRequest, `want {"agent": NAME}: agent is empty`)
		return
	}
	// The switch goes on if the browser leaves: a build cut short would
	// leave the new agent with its servers half started.
	if err := h.agent.Switch(context.WithoutCancel(r.Context()), body.Agent); err != nil {
		code := http.StatusInternalServerError
		if !slices.ContainsFunc(h.agent.Status().Agents, func(a AgentInfo) bool { return a.Name == body.Agent }) {
			code = http.StatusNotFound
		}
		writeError(w, code, err.Error())
		return
	}
	writeJSON(w, http.StatusOK, map[string]string{"agent": body.Agent})
}

func (h *Handler) outputs(w http.ResponseWriter, r *http.Request) {
	outs := h.agent.Outputs()
	if outs == nil {
		outs = []Output{}
	}
	writeJSON(w, http.StatusOK, map[string]any{"outputs": outs})
}

const (
	defaultPage = 16 << 10
	maxPage     = 1 << 20
)

func (h *Handler) outputPage(w http.ResponseWriter, r *http.Request) {
	handle := r.PathValue("handle")
	offset, err := intParam(r, "offset", 0)
	if err == nil && offset < 0 {
		err = errors.New("offset is negative")
	}
	limit, err2 := intParam(r, "limit", defaultPage)
	if err = errors.Join(err, err2); err != nil {
		writeError(w, http.StatusBadRequest, err.Error())
		return
	}
	limit = min(max(limit, 1), maxPage)
	if !slices.ContainsFunc(h.agent.Outputs(), func(o Output) bool { return o.Handle == handle }) {
		writeError(w, http.StatusNotFound, "no spilled output "+quote(handle)+" in this agent context")
		return
	}
	p, err := h.agent.ReadOutput(handle, offset, limit)
	if err != nil {
		writeError(w, http.StatusBadRequest, err.Error())
		return
	}
	writeJSON(w, http.StatusOK, p)
}

func intParam(r *http.Request, name string, def int) (int, error) {
	s := r.URL.Query().Get(name)
	if s == "" {
		return def, nil
	}
	n, err := strconv.Atoi(s)
	if err != nil {
		return 0, errors.New(name + " is not a whole number: " + quote(s))
	}
	return n, nil
}

func writeJSON(w http.ResponseWriter, code int, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		writeError(w, http.StatusInternalServerError, "encoding the answer: "+err.Error())
		return
	}
	hd := w.Header()
	hd.Set("Content-Type", "application/json")
	hd.Set("Cache-Control", "no-store")
	hd.Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(code)
	w.Write(append(b, '\n'))
}

func writeError(w http.ResponseWriter, code int, msg string) {
	writeJSON(w, code, map[string]string{"error": msg})
}
