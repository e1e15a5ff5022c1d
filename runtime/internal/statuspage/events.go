package statuspage

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"time"

	"github.com/toolgen-dev/toolgen/runtime/internal/eventhub"
)

const (
	// streamBuffer is how many events a stream may fall behind before the
	// hub drops it; the browser then reconnects from its last event id.
	streamBuffer = 256
	heartbeat    = 15 * time.Second
)

// events streams the runtime's events as server-sent events, each
// "id: SEQ" and "data: {time, level, event, attrs}". A client that
// reconnects with Last-Event-ID (EventSource does) gets what it missed
// while the ring still holds it, and an "event: gap" when it does not.
func (h *Handler) events(w http.ResponseWriter, r *http.Request) {
	if h.hub == nil {
		writeError(w, http.StatusNotFound, "this agent keeps no event log")
		return
	}
	after := lastEventID(r)
	rc := http.NewResponseController(w)
	_ = rc.SetWriteDeadline(time.Time{}) // a stream outlives any server WriteTimeout
	hd := w.Header()
	hd.Set("Content-Type", "text/event-stream")
	hd.Set("Cache-Control", "no-store")
	hd.Set("X-Accel-Buffering", "no")
	hd.Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(http.StatusOK)

	backlog, sub := h.hub.Subscribe(after, streamBuffer)
	defer sub.Close()
	fmt.Fprint(w, "retry: 1000\n\n")
	if after > 0 && len(backlog) > 0 && backlog[0].Seq > after+1 {
		fmt.Fprintf(w, "event: gap\ndata: {\"missed\":%d}\n\n", backlog[0].Seq-after-1)
	}
	for _, e := range backlog {
		if writeEvent(w, e) != nil {
			return
		}
	}
	if rc.Flush() != nil {
		return
	}
	tick := time.NewTicker(heartbeat)
	defer tick.Stop()
	for {
		var err error
		select {
		case <-r.Context().Done():
			return
		case <-h.done:
			return
		case <-tick.C:
			_, err = io.WriteString(w, ": ping\n\n")
		case e, ok := <-sub.C:
			if !ok {
				return // dropped for falling behind: the client reconnects
			}
			err = writeEvent(w, e)
			// Send what is queued with it in one flush.
			for err == nil && len(sub.C) > 0 {
				if e, ok = <-sub.C; ok {
					err = writeEvent(w, e)
				}
			}
		}
		if err == nil {
			err = rc.Flush()
		}
		if err != nil {
			return
		}
	}
}

func writeEvent(w io.Writer, e eventhub.Event) error {
	b, err := json.Marshal(e)
	if err != nil {
		// The hub encodes attributes when it records them; this is a bug.
		b, _ = json.Marshal(map[string]string{"time": e.Time.Format(time.RFC3339Nano), "level": e.Level, "event": e.Event, "error": err.Error()})
	}
	_, err = fmt.Fprintf(w, "id: %d\ndata: %s\n\n", e.Seq, b)
	return err
}

// lastEventID is where a stream resumes: the Last-Event-ID header an
// EventSource sends on reconnecting, or ?after= for scripts.
func lastEventID(r *http.Request) uint64 {
	s := r.Header.Get("Last-Event-ID")
	if s == "" {
		s = r.URL.Query().Get("after")
	}
	n, _ := strconv.ParseUint(s, 10, 64)
	return n
}
