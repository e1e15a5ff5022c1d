package jsonrpcline

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// Each request of Send's completes exactly once, whichever comes first of
// its response, the end of its context and the end of reading, when all
// three race.
func TestSendCompletesExactlyOnce(t *testing.T) {
	const calls = 300
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	c := NewConn(&scanLines{sc: bufio.NewScanner(inR), r: inR}, outW, Options{})
	go io.Copy(io.Discard, outR)
	go func() { // late responses to cancelled requests go on to go-sdk's side
		for {
			if _, err := c.Read(context.Background()); err != nil {
				return
			}
		}
	}()
	var (
		wg    sync.WaitGroup
		count [calls]atomic.Int32
		how   [3]atomic.Int32 // response, cancelled, reading ended
	)
	ready := make(chan struct{})
	for i := range calls {
		ctx, cancel := context.WithCancel(context.Background())
		wg.Add(1)
		err := c.Send(ctx, int64(i), []byte(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"x"}`+"\n", i)), func(line []byte, err error) {
			defer wg.Done()
			count[i].Add(1)
			switch {
			case err == nil:
				how[0].Add(1)
			case errors.Is(err, context.Canceled):
				how[1].Add(1)
			default:
				how[2].Add(1)
			}
		})
		if err != nil {
			t.Fatalf("Send %d: %v", i, err)
		}
		go func() { // its cancellation races the response and the close
			<-ready
			if i%2 == 0 {
				cancel()
			}
		}()
		defer cancel()
	}
	closed := make(chan struct{})
	go func() { // responses to two thirds, cancels from a third on, then the end
		defer close(closed)
		for i := range 2 * calls / 3 {
			if i == calls/3 {
				close(ready)
			}
			fmt.Fprintf(inW, `{"jsonrpc":"2.0","id":%d,"result":{}}`+"\n", i)
		}
		c.Close()
	}()
	wg.Wait()
	<-closed
	for i := range calls {
		if n := count[i].Load(); n != 1 {
			t.Errorf("request %d completed %d times", i, n)
		}
	}
	t.Logf("by response %d, by cancel %d, by the end %d", how[0].Load(), how[1].Load(), how[2].Load())
	if err := c.Send(context.Background(), calls, []byte("{}\n"), func([]byte, error) { t.Error("done after the end") }); err == nil {
		t.Error("Send after the end: no error")
	}
}

// A request whose context ends is forgotten: done has ctx.Err() at once,
// and its late response goes on to go-sdk as one it does not know.
func TestSendCancelledForgetsTheID(t *testing.T) {
	c, in, out := pipeConn(t)
	ctx, cancel := context.WithCancel(context.Background())
	got := make(chan error, 1)
	go func() {
		c.Send(ctx, 9, []byte(`{"jsonrpc":"2.0","id":9,"method":"x"}`+"\n"), func(line []byte, err error) { got <- err })
	}()
	out.Scan()
	cancel()
	if err := <-got; !errors.Is(err, context.Canceled) {
		t.Fatalf("done got %v, want context.Canceled", err)
	}
	io.WriteString(in, `{"jsonrpc":"2.0","id":9,"result":{}}`+"\n")
	m, err := c.Read(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if r, ok := m.(*jsonrpc.Response); !ok || r.ID.Raw() != int64(9) {
		t.Errorf("read %#v, want the response to 9", m)
	}
	if n := c.ncalls.Load(); n != 0 {
		t.Errorf("%d requests still noted", n)
	}
}
