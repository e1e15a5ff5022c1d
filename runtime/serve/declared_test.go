package serve

import (
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// declaringSession records what the server tells its connections.
type declaringSession struct {
	*fakeSession
	mu        sync.Mutex
	told      []*mcp.ClientCapabilities
	refreshed int
}

func (d *declaringSession) HostCapabilities(caps *mcp.ClientCapabilities) <-chan bool {
	d.mu.Lock()
	d.told = append(d.told, caps)
	d.mu.Unlock()
	ch := make(chan bool, 1)
	ch <- true
	return ch
}

func (d *declaringSession) Refresh() {
	d.mu.Lock()
	d.refreshed++
	d.mu.Unlock()
}

// Stateless hosts' declarations add up: a request declaring less than
// the ones before does not take anything from the connections (nothing is
// told), one declaring more adds to it, and the same declaration again
// costs neither a word to the connections nor an allocation (it is on
// every 2026-07-28 request). A host of a session (initialize) is told
// what it declared, as before.
func TestStatelessDeclarationsAddUp(t *testing.T) {
	sess := &declaringSession{fakeSession: newFakeSession()}
	s := New(sess, Options{})
	defer s.Close()
	sampling := &mcp.ClientCapabilities{Sampling: &mcp.SamplingCapabilities{}}
	form := &mcp.ClientCapabilities{Elicitation: &mcp.ElicitationCapabilities{Form: &mcp.FormElicitationCapabilities{}}}

	s.hostDeclared(sampling, true)
	s.waitHost(t.Context())
	s.hostDeclared(&mcp.ClientCapabilities{}, true) // a host that can do nothing
	s.hostDeclared(nil, true)
	s.hostDeclared(form, true)
	s.waitHost(t.Context())
	s.hostDeclared(sampling, true)
	if n := testing.AllocsPerRun(100, func() { s.hostDeclared(sampling, true) }); n != 0 {
		t.Errorf("a declaration already seen allocates %.0f times", n)
	}
	sess.mu.Lock()
	told, refreshed := sess.told, sess.refreshed
	sess.mu.Unlock()
	if len(told) != 2 || told[0].Sampling == nil || told[0].Elicitation != nil ||
		told[1].Sampling == nil || told[1].Elicitation == nil || told[1].Elicitation.Form == nil || told[1].Elicitation.URL != nil {
		t.Fatalf("the connections were told %+v, want sampling, then sampling and form elicitation", told)
	}
	if refreshed != 2 {
		t.Errorf("the session took its servers' lists %d times, want once per replacement (2)", refreshed)
	}
}
