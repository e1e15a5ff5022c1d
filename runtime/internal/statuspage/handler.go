// Package statuspage serves a running agent's status page and the JSON API
// it is built on: the agents (and switching between them), the servers
// with their health, the tools, recent calls, the live event log and
// spilled outputs; /healthz and /readyz for supervisors.
//
//	/ui/                      the page (embedded; no build step, no CDN)
//	GET  /api/status          agent, agents, servers, tools; the fleet with a shared store
//	GET  /api/find?q=&limit=  tools ranked as tool_find ranks them
//	POST /api/switch          {"agent": NAME}; same origin and JSON only
//	GET  /api/events          server-sent events: the runtime's log records
//	GET  /api/outputs         spilled outputs
//	GET  /api/outputs/{handle}?offset=&limit=   one page of one
//	GET  /healthz, /readyz    serving; every server of the agent up
//	/metrics                  Options.Metrics, when set
//
// Every path answers only requests addressed to a loopback name or to one
// of Options.Hosts, so that a web page elsewhere cannot reach it through a
// DNS name it rebinds to 127.0.0.1; the probes (/healthz, /readyz,
// /metrics) also answer an IP address, which no rebinding can send.
package statuspage

import (
	"embed"
	"io/fs"
	"log/slog"
	"net/http"
	"sync"

	"github.com/toolgen-dev/toolgen/runtime/internal/eventhub"
)

//go:embed ui
var uiFiles embed.FS

// Options configure the Handler.
type Options struct {
	Agent  Agent         // required
	Events *eventhub.Hub // the runtime logger's hub; nil: /api/events is 404
	// Metrics, when set, is served at /metrics (telemetry's Prometheus
	// handler).
	Metrics http.Handler
	// Hosts are host names (no port) besides loopback ones that the page
	// and the API answer to: the names a user reaches a non-loopback
	// listener by. "*" allows any.
	Hosts  []string
	Logger *slog.Logger // nil: discarded
	// Fleet, when set, adds the replicas sharing the store and their
	// recent calls to /api/status.
	Fleet FleetView
}

// Handler is the status page's http.Handler.
type Handler struct {
	agent  Agent
	fleet  FleetView
	hub    *eventhub.Hub
	hosts  []string
	log    *slog.Logger
	mux    *http.ServeMux
	done   chan struct{} // closed by Close: event streams end
	closer sync.Once
}

// New returns the handler. Mount it at the root of a listener (serve
// --ui) or route /ui/, /api/, /healthz, /readyz and /metrics to it.
func New(o Options) *Handler {
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	h := &Handler{agent: o.Agent, fleet: o.Fleet, hub: o.Events, hosts: o.Hosts, log: o.Logger, mux: http.NewServeMux(), done: make(chan struct{})}
	ui, _ := fs.Sub(uiFiles, "ui")
	page := http.StripPrefix("/ui/", http.FileServerFS(ui))

	h.mux.Handle("GET /{$}", http.RedirectHandler("/ui/", http.StatusFound))
	h.mux.Handle("GET /ui", http.RedirectHandler("/ui/", http.StatusMovedPermanently))
	h.mux.Handle("GET /ui/", pageHeaders(page))
	h.mux.HandleFunc("GET /api/status", h.status)
	h.mux.HandleFunc("GET /api/find", h.find)
	h.mux.HandleFunc("POST /api/switch", h.switchAgent)
	h.mux.HandleFunc("GET /api/events", h.events)
	h.mux.HandleFunc("GET /api/outputs", h.outputs)
	h.mux.HandleFunc("GET /api/outputs/{handle...}", h.outputPage)
	h.mux.HandleFunc("/api/", func(w http.ResponseWriter, r *http.Request) {
		writeError(w, http.StatusNotFound, "no such API: "+r.Method+" "+r.URL.Path)
	})
	h.mux.HandleFunc("GET /healthz", h.healthz)
	h.mux.HandleFunc("GET /readyz", h.readyz)
	if o.Metrics != nil {
		h.mux.Handle("GET /metrics", o.Metrics)
	}
	return h
}

// ServeHTTP checks the Host before any path is looked at.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if !h.hostAllowed(r.Host, isProbe(r.URL.Path)) {
		writeError(w, http.StatusForbidden, "host "+quote(r.Host)+" is not one this agent answers to: a loopback name, or one the agent is told to answer to")
		return
	}
	h.mux.ServeHTTP(w, r)
}

// Close ends the event streams, which would otherwise hold
// http.Server.Shutdown until its deadline (register it with
// RegisterOnShutdown); /healthz then answers 503.
func (h *Handler) Close() { h.closer.Do(func() { close(h.done) }) }

// pageHeaders keeps the page to its own scripts and styles (tool
// descriptions come from servers: nothing in them may run) and out of
// frames (no clicking a switch button through another site).
func pageHeaders(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hd := w.Header()
		hd.Set("Content-Security-Policy", "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'")
		hd.Set("X-Content-Type-Options", "nosniff")
		hd.Set("X-Frame-Options", "DENY")
		hd.Set("Referrer-Policy", "no-referrer")
		hd.Set("Cache-Control", "no-cache")
		next.ServeHTTP(w, r)
	})
}
