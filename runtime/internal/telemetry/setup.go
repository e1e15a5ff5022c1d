package telemetry

import (
	"context"
	"log/slog"
	"net/http"
	"os"
	"strings"
	"sync"
)

// Options configure Setup.
type Options struct {
	// ServiceName names the agent binary in every signal; OTEL_SERVICE_NAME
	// and OTEL_RESOURCE_ATTRIBUTES win over it. Default "toolgen-agent".
	ServiceName    string
	ServiceVersion string
	// Prometheus makes a /metrics handler (MetricsHandler).
	Prometheus bool
	// Logger hears of OTEL_* settings Setup cannot honour; nil:
	// discarded.
	Logger *slog.Logger
}

// SDK is the OpenTelemetry SDK an agent binary runs: runtime/telemetry's
// when that package is linked, else one that records nothing.
type SDK interface {
	// MeterProvider (a metric.MeterProvider) is nil when no metrics are read.
	MeterProvider() any
	// TracerProvider (a trace.TracerProvider) is nil when traces go nowhere.
	TracerProvider() any
	// MetricsHandler serves /metrics; nil unless Options.Prometheus.
	MetricsHandler() http.Handler
	// Shutdown flushes what is not exported yet.
	Shutdown(context.Context) error
}

// LinkPackage is the package that links the SDK into a binary.
const LinkPackage = "github.com/toolgen-dev/toolgen/runtime/telemetry"

// NotLinked says what to declare for telemetry, in every message about it.
const NotLinked = "this binary was built without telemetry: declare `toolgen { telemetry = true }` in the spec " +
	"(or import _ \"" + LinkPackage + "\" in main.go), regenerate and rebuild"

var (
	setupMu sync.Mutex
	setupFn func(context.Context, Options) (SDK, error)
)

// Register installs the SDK's Setup; runtime/telemetry calls it from init.
func Register(setup func(context.Context, Options) (SDK, error)) {
	setupMu.Lock()
	defer setupMu.Unlock()
	setupFn = setup
}

// Linked reports whether the SDK is in this binary.
func Linked() bool {
	setupMu.Lock()
	defer setupMu.Unlock()
	return setupFn != nil
}

// Setup builds the linked SDK. Without one it returns an SDK that
// records nothing, and says so when the environment or the options ask
// for something only the SDK could do: never a silent no-op.
func Setup(ctx context.Context, o Options) (SDK, error) {
	setupMu.Lock()
	setup := setupFn
	setupMu.Unlock()
	if setup != nil {
		return setup(ctx, o)
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	if v := otlpAsked(); v != "" && !strings.EqualFold(strings.TrimSpace(os.Getenv("OTEL_SDK_DISABLED")), "true") {
		o.Logger.Warn("telemetry.not_linked", "variable", v, "reason", NotLinked+"; nothing is exported")
	}
	return noSDK{prometheus: o.Prometheus}, nil
}

// otlpAsked is the first OTLP endpoint variable set, "" when none is.
func otlpAsked() string {
	for _, v := range []string{"OTEL_EXPORTER_OTLP_ENDPOINT", "OTEL_EXPORTER_OTLP_METRICS_ENDPOINT", "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"} {
		if os.Getenv(v) != "" {
			return v
		}
	}
	return ""
}

// noSDK records nothing; its /metrics answers what to declare.
type noSDK struct{ prometheus bool }

func (noSDK) MeterProvider() any             { return nil }
func (noSDK) TracerProvider() any            { return nil }
func (noSDK) Shutdown(context.Context) error { return nil }

func (s noSDK) MetricsHandler() http.Handler {
	if !s.prometheus {
		return nil
	}
	return http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		http.Error(w, "no metrics: "+NotLinked+".", http.StatusNotImplemented)
	})
}
