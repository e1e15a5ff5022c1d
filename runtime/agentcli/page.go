package agentcli

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"time"

	"github.com/toolgen-dev/toolgen/internal/serveauth"
	"github.com/toolgen-dev/toolgen/runtime"
	"github.com/toolgen-dev/toolgen/runtime/internal/eventhub"
	"github.com/toolgen-dev/toolgen/runtime/internal/fleet"
	"github.com/toolgen-dev/toolgen/runtime/internal/sessionagent"
	"github.com/toolgen-dev/toolgen/runtime/internal/statuspage"
	"github.com/toolgen-dev/toolgen/runtime/internal/telemetry"
	"github.com/toolgen-dev/toolgen/runtime/serve"
	"github.com/toolgen-dev/toolgen/runtime/store"
)

// watch is what serve sets up so that a running agent can be seen: the
// event hub behind its logger (the page's live event log) and the
// OpenTelemetry SDK (/metrics, and OTLP when OTEL_EXPORTER_OTLP_* say so).
type watch struct {
	hub *eventhub.Hub // nil: no page
	sdk telemetry.SDK
	// shared is serve --store's store: the page then shows the fleet,
	// which fleet heartbeats into until stop.
	shared store.Store
	fleet  fleet.Member
}

// startWatch builds the logger serve's sessions use and the telemetry SDK.
// page says whether a status page will be served (--http or --ui).
func (c *cli) startWatch(page bool) (*watch, error) {
	w := &watch{}
	so := &c.opts.Session
	if so.Logger == nil {
		so.Logger = c.logger(slog.LevelInfo)
	}
	if page {
		// In front of the logger, whoever made it: the page's event log is
		// what the agent logs.
		w.hub = eventhub.New(eventhub.Options{})
		so.Logger = slog.New(w.hub.Handler(so.Logger.Handler()))
	}
	name := "toolgen-agent"
	if c.reg != nil && c.reg.Package != "" {
		name = c.reg.Package
	}
	sdk, err := telemetry.Setup(c.ctx, telemetry.Options{ServiceName: name, Prometheus: page, Logger: so.Logger})
	if err != nil {
		return nil, err
	}
	w.sdk = sdk
	if so.MeterProvider == nil {
		so.MeterProvider = sdk.MeterProvider()
	}
	if so.TracerProvider == nil {
		so.TracerProvider = sdk.TracerProvider()
	}
	return w, nil
}

// leave takes this replica off the fleet: before the session closes, so
// that no heartbeat reads a closed session's servers.
func (w *watch) leave() {
	if w.fleet != nil {
		w.fleet.Stop()
	}
}

// stop leaves the fleet and flushes what OTLP has not sent yet.
func (w *watch) stop(log *slog.Logger) {
	w.leave()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := w.sdk.Shutdown(ctx); err != nil {
		log.Warn("telemetry.shutdown", "error", err)
	}
}

// page is the status page of the served session; followers are the
// per-client sessions of serve --http (nil under stdio).
func (c *cli) page(w *watch, sess *runtime.Session, followers func() []sessionagent.Session) *statuspage.Handler {
	agent := sessionagent.New(c.reg, sess, followers)
	var view statuspage.FleetView
	if w.shared != nil && w.fleet == nil && fleet.Join != nil {
		w.fleet = fleet.Join(fleet.Options{Store: w.shared, Hub: w.hub, Logger: c.opts.Session.Logger,
			Servers: agent.Servers})
		view = w.fleet
	}
	return statuspage.New(statuspage.Options{
		Agent:   agent,
		Events:  w.hub,
		Metrics: w.sdk.MetricsHandler(),
		Logger:  c.opts.Session.Logger,
		Fleet:   view,
	})
}

// clientSessions lists the sessions of serve --http's clients for the page.
func clientSessions(cl *serve.Clients) []sessionagent.Session {
	var out []sessionagent.Session
	for _, s := range cl.Sessions() {
		if rs, ok := s.(sessionagent.Session); ok {
			out = append(out, rs)
		}
	}
	return out
}

// servePage serves the page on its own listener (serve --stdio --ui ADDR)
// until ctx ends. Only a loopback address is accepted: the page can switch
// agents, and serve --stdio has no authentication to put in front of it.
func (c *cli) servePage(ctx context.Context, addr string, page *statuspage.Handler, log *slog.Logger) (stop func(), err error) {
	if serveauth.CheckExposure(addr, false) != nil {
		// not CheckExposure's text: its --auth-* flags are serve --http's
		return nil, fmt.Errorf("--ui %s is reachable from other machines, and the status page beside --stdio has no authentication (it can switch agents): "+
			"give a loopback address (--ui 127.0.0.1:PORT or localhost:PORT); to show the page to other machines, run serve --http ADDR with --auth-token-env or --auth-issuer instead", addr)
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("--ui: %w", err)
	}
	hs := &http.Server{Handler: page, ReadHeaderTimeout: 10 * time.Second,
		ErrorLog: slog.NewLogLogger(log.Handler(), slog.LevelWarn)}
	hs.RegisterOnShutdown(page.Close)
	// A plain line scripts can wait for (the port, when 0 was asked).
	fmt.Fprintf(c.stderr, "status page on http://%s/ui/\n", ln.Addr())
	log.Info("serve.ui", "addr", ln.Addr().String())
	done := make(chan struct{})
	go func() {
		defer close(done)
		if err := hs.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			log.Error("serve.ui", "error", err)
		}
	}()
	return func() {
		sctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
		defer cancel()
		if hs.Shutdown(sctx) != nil {
			hs.Close()
		}
		<-done
	}, nil
}
