package telemetry

import (
	"sync"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"
)

// The caller (serve's inbound identity) is a label of toolgen.tool.calls
// only, and a bounded one: the first maxCallerLabels callers an agent
// process sees are named, every later one counts as "other". One series
// per user of a large fleet would grow without bound.
const (
	maxCallerLabels = 50
	otherCaller     = "other"
)

// callerNames remembers which callers are named.
type callerNames struct {
	named sync.Map // caller → struct{}
	mu    sync.Mutex
	n     int // guarded by mu
}

// label is the caller's label value: its name, or otherCaller once
// maxCallerLabels others were named.
func (c *callerNames) label(id string) string {
	if _, ok := c.named.Load(id); ok {
		return id
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.named.Load(id); ok {
		return id
	}
	if c.n >= maxCallerLabels {
		return otherCaller
	}
	c.n++
	c.named.Store(id, struct{}{})
	return id
}

// callerSets are one tool's attribute sets of the calls counter for one
// caller, by status.
type callerSets struct {
	byStatus sync.Map // status → metric.MeasurementOption
	base     []attribute.KeyValue
}

// withCaller is the calls counter's option for a call of caller ending
// with status: the tool's labels, status and caller.
func (ts *toolSets) withCaller(caller, status string) metric.MeasurementOption {
	v, ok := ts.callers.Load(caller)
	if !ok {
		v, _ = ts.callers.LoadOrStore(caller, &callerSets{base: append(ts.base[:3:3], attribute.String("caller", caller))})
	}
	cs := v.(*callerSets)
	if o, ok := cs.byStatus.Load(status); ok {
		return o.(metric.MeasurementOption)
	}
	o, _ := cs.byStatus.LoadOrStore(status, metric.WithAttributeSet(attribute.NewSet(append(cs.base[:4:4], attribute.String("status", status))...)))
	return o.(metric.MeasurementOption)
}
