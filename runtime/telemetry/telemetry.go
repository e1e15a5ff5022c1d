// Package telemetry links the OpenTelemetry SDK into an agent binary:
// metrics (Prometheus at /metrics, and OTLP over HTTP) and traces (OTLP
// over HTTP), with the official Go SDK and exporters. It registers itself
// with the runtime when imported; the generated registry imports it when
// the spec says `toolgen { telemetry = true }`, and a main package can
// import it blank to the same effect.
//
// Without it an agent still records nothing at no cost: the runtime
// holds only the small OpenTelemetry API (a library host can pass its own
// providers through SessionOptions), and warns when OTEL_EXPORTER_OTLP_*
// asks for an export this binary cannot make.
//
// OTLP goes out only when an OTEL_EXPORTER_OTLP_*ENDPOINT variable is
// set; without one Setup makes no exporter and nothing leaves the process
// but what /metrics is asked for.
package telemetry

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"strings"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"github.com/prometheus/otlptranslator"
	"go.opentelemetry.io/otel/exporters/otlp/otlpmetric/otlpmetrichttp"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	otelprom "go.opentelemetry.io/otel/exporters/prometheus"
	"go.opentelemetry.io/otel/metric"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	semconv "go.opentelemetry.io/otel/semconv/v1.43.0"
	"go.opentelemetry.io/otel/trace"

	itel "github.com/toolgen-dev/toolgen/runtime/internal/telemetry"
)

// init links this package into the runtime: the SDK agentcli sets up,
// and the instruments any host's providers record through.
func init() {
	itel.Register(func(ctx context.Context, o itel.Options) (itel.SDK, error) {
		sdk, err := Setup(ctx, o)
		if err != nil {
			return nil, err
		}
		return linkedSDK{sdk}, nil
	})
	itel.RegisterInstruments(itel.Linker{New: newRecorder, TraceMeta: TraceMeta, ExtractMeta: ExtractMeta})
}

// linkedSDK is the SDK as the runtime sees it, without OpenTelemetry types.
type linkedSDK struct{ *SDK }

func (s linkedSDK) MeterProvider() any {
	if mp := s.SDK.MeterProvider(); mp != nil {
		return mp
	}
	return nil
}

func (s linkedSDK) TracerProvider() any {
	if tp := s.SDK.TracerProvider(); tp != nil {
		return tp
	}
	return nil
}

// newRecorder is New on the providers a session was given as any.
func newRecorder(meterProvider, tracerProvider any) (itel.Recorder, error) {
	mp, ok := meterProvider.(metric.MeterProvider)
	if meterProvider != nil && !ok {
		return nil, fmt.Errorf("SessionOptions.MeterProvider is a %T, not an OpenTelemetry metric.MeterProvider", meterProvider)
	}
	tp, ok := tracerProvider.(trace.TracerProvider)
	if tracerProvider != nil && !ok {
		return nil, fmt.Errorf("SessionOptions.TracerProvider is a %T, not an OpenTelemetry trace.TracerProvider", tracerProvider)
	}
	if in := New(mp, tp); in != nil {
		return in, nil
	}
	return nil, nil
}

// Options configure Setup.
type Options = itel.Options

// SDK is the OpenTelemetry SDK an agent binary runs.
type SDK struct {
	mp      *sdkmetric.MeterProvider // nil: no metrics
	tp      *sdktrace.TracerProvider // nil: no traces
	metrics http.Handler
	otlp    struct{ metrics, traces bool }
}

// Setup builds the SDK: a Prometheus reader when asked, OTLP over HTTP
// for metrics and for traces when the environment names an endpoint for
// them. OTEL_SDK_DISABLED=true turns everything off.
func Setup(ctx context.Context, o Options) (*SDK, error) {
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	if o.ServiceName == "" {
		o.ServiceName = "toolgen-agent"
	}
	sdk := &SDK{}
	if strings.EqualFold(strings.TrimSpace(os.Getenv("OTEL_SDK_DISABLED")), "true") {
		return sdk, nil
	}
	res, err := resource.New(ctx,
		resource.WithAttributes(semconv.ServiceName(o.ServiceName), semconv.ServiceVersion(o.ServiceVersion)),
		resource.WithTelemetrySDK(),
		resource.WithFromEnv(), // OTEL_SERVICE_NAME, OTEL_RESOURCE_ATTRIBUTES: last, so they win
	)
	if err != nil {
		return nil, fmt.Errorf("telemetry resource: %w", err)
	}

	var readers []sdkmetric.Option
	if o.Prometheus {
		reg := prometheus.NewRegistry()
		exp, err := otelprom.New(
			otelprom.WithRegisterer(reg),
			otelprom.WithTranslationStrategy(otlptranslator.UnderscoreEscapingWithSuffixes),
			otelprom.WithoutScopeInfo(), // one scope (ours): its labels on every series would be noise
		)
		if err != nil {
			return nil, fmt.Errorf("prometheus exporter: %w", err)
		}
		readers = append(readers, sdkmetric.WithReader(exp))
		sdk.metrics = promhttp.HandlerFor(reg, promhttp.HandlerOpts{EnableOpenMetrics: true})
	}
	if otlpWanted(o.Logger, "metrics") {
		exp, err := otlpmetrichttp.New(ctx)
		if err != nil {
			return nil, fmt.Errorf("OTLP metrics exporter: %w", err)
		}
		// The interval is OTEL_METRIC_EXPORT_INTERVAL (default 60 s).
		readers = append(readers, sdkmetric.WithReader(sdkmetric.NewPeriodicReader(exp)))
		sdk.otlp.metrics = true
	}
	if len(readers) > 0 {
		sdk.mp = sdkmetric.NewMeterProvider(append(readers, sdkmetric.WithResource(res))...)
	}
	if otlpWanted(o.Logger, "traces") {
		exp, err := otlptracehttp.New(ctx)
		if err != nil {
			return nil, errors.Join(fmt.Errorf("OTLP trace exporter: %w", err), sdk.Shutdown(ctx))
		}
		// Sampling is OTEL_TRACES_SAMPLER (default: parent-based, always on);
		// batching is OTEL_BSP_*.
		sdk.tp = sdktrace.NewTracerProvider(sdktrace.WithBatcher(exp), sdktrace.WithResource(res))
		sdk.otlp.traces = true
	}
	return sdk, nil
}

// otlpWanted reads the standard variables for one signal ("metrics" or
// "traces"): OTEL_<SIGNAL>_EXPORTER (otlp unless none), an endpoint
// (OTEL_EXPORTER_OTLP_ENDPOINT or OTEL_EXPORTER_OTLP_<SIGNAL>_ENDPOINT),
// and the protocol, of which http/protobuf is the one supported. What it
// cannot honour it logs, and exports nothing for that signal.
func otlpWanted(log *slog.Logger, signal string) bool {
	up := strings.ToUpper(signal)
	exporters := strings.TrimSpace(os.Getenv("OTEL_" + up + "_EXPORTER"))
	if exporters == "" {
		exporters = "otlp"
	}
	otlp := false
	for e := range strings.SplitSeq(exporters, ",") {
		switch e = strings.TrimSpace(e); e {
		case "otlp":
			otlp = true
		case "none", "":
		case "prometheus":
			if signal != "metrics" {
				log.Warn("telemetry.unsupported", "variable", "OTEL_"+up+"_EXPORTER", "value", e)
			}
			// metrics: that is the /metrics endpoint, served when asked for
		default:
			log.Warn("telemetry.unsupported", "variable", "OTEL_"+up+"_EXPORTER", "value", e, "reason", "only otlp (over HTTP) and none are supported")
		}
	}
	if !otlp || os.Getenv("OTEL_EXPORTER_OTLP_ENDPOINT") == "" && os.Getenv("OTEL_EXPORTER_OTLP_"+up+"_ENDPOINT") == "" {
		return false
	}
	proto := os.Getenv("OTEL_EXPORTER_OTLP_" + up + "_PROTOCOL")
	if proto == "" {
		proto = os.Getenv("OTEL_EXPORTER_OTLP_PROTOCOL")
	}
	if proto != "" && proto != "http/protobuf" {
		log.Warn("telemetry.unsupported", "signal", signal, "protocol", proto, "reason", "only http/protobuf is supported; nothing is exported for this signal")
		return false
	}
	return true
}

// MeterProvider is nil when no metrics are read (nothing to give New).
func (s *SDK) MeterProvider() metric.MeterProvider {
	if s.mp == nil {
		return nil
	}
	return s.mp
}

// TracerProvider is nil when traces go nowhere.
func (s *SDK) TracerProvider() trace.TracerProvider {
	if s.tp == nil {
		return nil
	}
	return s.tp
}

// MetricsHandler serves the Prometheus exposition (text, or OpenMetrics
// when the scraper asks for it); nil unless Options.Prometheus.
func (s *SDK) MetricsHandler() http.Handler { return s.metrics }

// Exporting says which signals go out over OTLP.
func (s *SDK) Exporting() (metrics, traces bool) { return s.otlp.metrics, s.otlp.traces }

// Shutdown flushes what OTLP has not sent yet and stops the exporters.
func (s *SDK) Shutdown(ctx context.Context) error {
	var errs []error
	if s.tp != nil {
		errs = append(errs, s.tp.Shutdown(ctx))
	}
	if s.mp != nil {
		errs = append(errs, s.mp.Shutdown(ctx))
	}
	return errors.Join(errs...)
}
