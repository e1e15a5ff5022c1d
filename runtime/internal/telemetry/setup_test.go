package telemetry

import (
	"bytes"
	"context"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// Without runtime/telemetry linked, an OTLP endpoint in the environment
// and a /metrics request each say what to declare, instead of nothing
// happening.
func TestSetupNotLinked(t *testing.T) {
	if Linked() {
		t.Fatal("the SDK is linked into this test; the test needs a binary without it")
	}
	t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", "http://127.0.0.1:4318")
	t.Setenv("OTEL_SDK_DISABLED", "")
	var logs bytes.Buffer
	sdk, err := Setup(context.Background(), Options{Prometheus: true, Logger: slog.New(slog.NewTextHandler(&logs, nil))})
	if err != nil {
		t.Fatal(err)
	}
	if sdk.MeterProvider() != nil || sdk.TracerProvider() != nil {
		t.Error("providers without an SDK")
	}
	for _, want := range []string{"telemetry.not_linked", "OTEL_EXPORTER_OTLP_ENDPOINT", "telemetry = true"} {
		if !strings.Contains(logs.String(), want) {
			t.Errorf("log %q does not mention %q", logs.String(), want)
		}
	}
	rec := httptest.NewRecorder()
	sdk.MetricsHandler().ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/metrics", nil))
	if rec.Code != http.StatusNotImplemented || !strings.Contains(rec.Body.String(), LinkPackage) {
		t.Errorf("/metrics = %d %q, want 501 naming %s", rec.Code, rec.Body, LinkPackage)
	}

	// Nothing asked: no warning.
	t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", "")
	logs.Reset()
	if _, err := Setup(context.Background(), Options{Logger: slog.New(slog.NewTextHandler(&logs, nil))}); err != nil {
		t.Fatal(err)
	}
	if logs.Len() != 0 {
		t.Errorf("warned with nothing asked: %s", logs.String())
	}
}
