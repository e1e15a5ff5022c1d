package serve

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"testing"
	"time"
)

// Closing while a host keeps calling: a call taken on the lean path is
// either answered before the connection closes or left to go-sdk, never
// started after close stopped waiting for the calls (run with -race).
func TestLeanCallsWhileClosing(t *testing.T) {
	for range 200 {
		s := New(newFakeSession(), Options{})
		cr, sw := io.Pipe()
		sr, cw := io.Pipe()
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan error, 1)
		go func() { done <- s.ServeIO(ctx, sr, sw); sw.Close() }()
		go io.Copy(io.Discard, bufio.NewReader(cr))
		fmt.Fprint(cw, `{"jsonrpc":"2.0","id":"init","method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`+"\n")
		fmt.Fprint(cw, `{"jsonrpc":"2.0","method":"notifications/initialized"}`+"\n")
		stop := make(chan struct{})
		flooded := make(chan struct{})
		go func() {
			defer close(flooded)
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				if _, err := fmt.Fprintf(cw, `{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"echo","arguments":{}}}`+"\n", i); err != nil {
					return
				}
			}
		}()
		time.Sleep(time.Millisecond)
		cancel()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			t.Fatal("ServeIO did not return")
		}
		close(stop)
		cw.Close()
		sr.Close()
		<-flooded
		s.Close()
	}
}
