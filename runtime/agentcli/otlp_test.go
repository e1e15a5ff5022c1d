package agentcli_test

import (
	"compress/gzip"
	"encoding/hex"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	colmetricpb "go.opentelemetry.io/proto/otlp/collector/metrics/v1"
	coltracepb "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	metricpb "go.opentelemetry.io/proto/otlp/metrics/v1"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
	"google.golang.org/protobuf/proto"
)

// otlpReceiver is an OTLP/HTTP endpoint on loopback decoding what it gets
// with the official protobufs, as a collector would.
type otlpReceiver struct {
	srv     *httptest.Server
	mu      sync.Mutex
	spans   []*tracepb.ResourceSpans
	metrics []*metricpb.ResourceMetrics
}

func newOTLPReceiver(t *testing.T) *otlpReceiver {
	rc := &otlpReceiver{}
	rc.srv = httptest.NewServer(http.HandlerFunc(rc.serve))
	t.Cleanup(rc.srv.Close)
	return rc
}

func (rc *otlpReceiver) serve(w http.ResponseWriter, r *http.Request) {
	var body io.Reader = r.Body
	if r.Header.Get("Content-Encoding") == "gzip" {
		zr, err := gzip.NewReader(r.Body)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		body = zr
	}
	b, err := io.ReadAll(body)
	if err != nil || r.Header.Get("Content-Type") != "application/x-protobuf" {
		http.Error(w, "want application/x-protobuf", http.StatusBadRequest)
		return
	}
	var resp proto.Message
	rc.mu.Lock()
	switch r.URL.Path {
	case "/v1/traces":
		var req coltracepb.ExportTraceServiceRequest
		if err = proto.Unmarshal(b, &req); err == nil {
			rc.spans = append(rc.spans, req.ResourceSpans...)
		}
		resp = &coltracepb.ExportTraceServiceResponse{}
	case "/v1/metrics":
		var req colmetricpb.ExportMetricsServiceRequest
		if err = proto.Unmarshal(b, &req); err == nil {
			rc.metrics = append(rc.metrics, req.ResourceMetrics...)
		}
		resp = &colmetricpb.ExportMetricsServiceResponse{}
	}
	rc.mu.Unlock()
	if resp == nil || err != nil {
		http.Error(w, "bad export", http.StatusBadRequest)
		return
	}
	out, _ := proto.Marshal(resp)
	w.Header().Set("Content-Type", "application/x-protobuf")
	w.Write(out)
}

func (rc *otlpReceiver) span(name string) *tracepb.Span {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	for _, rs := range rc.spans {
		for _, ss := range rs.ScopeSpans {
			for _, s := range ss.Spans {
				if s.Name == name {
					return s
				}
			}
		}
	}
	return nil
}

func (rc *otlpReceiver) service() string {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	for _, rs := range rc.spans {
		for _, a := range rs.GetResource().GetAttributes() {
			if a.Key == "service.name" {
				return a.Value.GetStringValue()
			}
		}
	}
	return ""
}

func (rc *otlpReceiver) hasMetric(name string) bool {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	for _, rm := range rc.metrics {
		for _, sm := range rm.ScopeMetrics {
			for _, m := range sm.Metrics {
				if m.Name == name {
					return true
				}
			}
		}
	}
	return false
}

// With OTEL_EXPORTER_OTLP_ENDPOINT set, the binary exports a span per
// tool call with the upstream tools/call as its child, and its metrics,
// to the endpoint; the rest is flushed when the host hangs up.
func TestOTLPExport(t *testing.T) {
	rc := newOTLPReceiver(t)
	s := serveStdio(t, "OTEL_EXPORTER_OTLP_ENDPOINT="+rc.srv.URL, "OTEL_BSP_SCHEDULE_DELAY=50", "OTEL_METRIC_EXPORT_INTERVAL=100")
	if got := s.call(t, "alpha__echo", map[string]any{"text": "traced"}); got != "traced" {
		t.Fatalf("echo = %q", got)
	}
	s.cs.Close() // the agent exits and flushes
	deadline := time.Now().Add(time.Minute)
	for rc.span("tools/call echo") == nil || !rc.hasMetric("toolgen.tool.calls") {
		if time.Now().After(deadline) {
			t.Fatalf("nothing exported: spans %v, metrics %v\n%s", rc.span("tools/call echo") != nil, rc.hasMetric("toolgen.tool.calls"), s.logs)
		}
		time.Sleep(50 * time.Millisecond)
	}
	tool, up := rc.span("execute_tool alpha__echo"), rc.span("tools/call echo")
	if tool == nil {
		t.Fatal("no execute_tool alpha__echo span")
	}
	if hex.EncodeToString(up.ParentSpanId) != hex.EncodeToString(tool.SpanId) || hex.EncodeToString(up.TraceId) != hex.EncodeToString(tool.TraceId) {
		t.Errorf("tools/call echo (parent %x) is not a child of execute_tool alpha__echo (%x)", up.ParentSpanId, tool.SpanId)
	}
	if got := rc.service(); got != "testagent" {
		t.Errorf("service.name = %q, want the registry's package testagent", got)
	}
}
