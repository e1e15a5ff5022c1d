package telemetry_test

import (
	"compress/gzip"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	colmetricpb "go.opentelemetry.io/proto/otlp/collector/metrics/v1"
	coltracepb "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	metricpb "go.opentelemetry.io/proto/otlp/metrics/v1"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
	"google.golang.org/protobuf/proto"
)

// receiver is an OTLP/HTTP endpoint on loopback that decodes what it is
// sent with the official protobufs, as a collector would.
type receiver struct {
	srv *httptest.Server

	mu      sync.Mutex
	spans   []*tracepb.ResourceSpans
	metrics []*metricpb.ResourceMetrics
	paths   []string
}

func newReceiver(t testing.TB) *receiver {
	rc := &receiver{}
	rc.srv = httptest.NewServer(http.HandlerFunc(rc.serve))
	t.Cleanup(rc.srv.Close)
	return rc
}

func (rc *receiver) serve(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost || r.Header.Get("Content-Type") != "application/x-protobuf" {
		http.Error(w, "want a POST of application/x-protobuf", http.StatusUnsupportedMediaType)
		return
	}
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
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	var resp proto.Message
	rc.mu.Lock()
	rc.paths = append(rc.paths, r.URL.Path)
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
	default:
		rc.mu.Unlock()
		http.NotFound(w, r)
		return
	}
	rc.mu.Unlock()
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	out, _ := proto.Marshal(resp)
	w.Header().Set("Content-Type", "application/x-protobuf")
	w.Write(out)
}

func (rc *receiver) allSpans() (out []*tracepb.Span, resources []*tracepb.ResourceSpans) {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	for _, rs := range rc.spans {
		for _, ss := range rs.ScopeSpans {
			out = append(out, ss.Spans...)
		}
	}
	return out, rc.spans
}

// metric finds the last exported data of a metric by name.
func (rc *receiver) metric(name string) *metricpb.Metric {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	var found *metricpb.Metric
	for _, rm := range rc.metrics {
		for _, sm := range rm.ScopeMetrics {
			for _, m := range sm.Metrics {
				if m.Name == name {
					found = m
				}
			}
		}
	}
	return found
}
