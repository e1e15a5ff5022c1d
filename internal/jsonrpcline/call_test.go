package jsonrpcline

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

type scanLines struct {
	sc *bufio.Scanner
	r  io.Closer
}

func (l *scanLines) Next() ([]byte, error) {
	if l.sc.Scan() {
		return l.sc.Bytes(), nil
	}
	if err := l.sc.Err(); err != nil {
		return nil, err
	}
	return nil, io.EOF
}

func (l *scanLines) Close() error { return l.r.Close() }

// pipeConn is a Conn whose input the test writes (in) and whose output
// it reads a line at a time (out).
func pipeConn(t *testing.T) (c *Conn, in *io.PipeWriter, out *bufio.Scanner) {
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	c = NewConn(&scanLines{sc: bufio.NewScanner(inR), r: inR}, outW, Options{})
	t.Cleanup(func() { c.Close(); inW.Close(); go io.Copy(io.Discard, outR) })
	return c, inW, bufio.NewScanner(outR)
}

// A response is a message with an id and no method, as go-sdk reads it,
// whether or not it has a result or an error: go-sdk hands a response
// without either to its call (which then fails to decode it), and a Call
// must not wait for ever for another one.
func TestCallTakesEveryResponse(t *testing.T) {
	for _, resp := range []string{
		`{"jsonrpc":"2.0","id":7}`,
		`{"jsonrpc":"2.0","id":7.0,"result":{}}`,
		`{"jsonrpc":"2.0","id":7,"error":{"code":1,"message":"m"}}`,
	} {
		c, in, out := pipeConn(t)
		ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
		done := make(chan error, 1)
		go func() {
			_, err := c.Call(ctx, 7, []byte(`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{}}`+"\n"))
			done <- err
		}()
		out.Scan() // the request: the call is waiting
		io.WriteString(in, resp+"\n")
		if err := <-done; err != nil {
			t.Errorf("%s: Call: %v", resp, err)
		}
		cancel()
	}
}

// The responses to a batch's requests go out together, as one array, as
// go-sdk's IOTransport writes them (JSON-RPC 2.0's batches).
func TestBatchAnsweredAsOneArray(t *testing.T) {
	c, in, out := pipeConn(t)
	io.WriteString(in, `[{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","method":"notifications/x"},{"jsonrpc":"2.0","id":"b","method":"ping"}]`+"\n")
	ctx := context.Background()
	var ids []jsonrpc.ID
	for range 3 {
		m, err := c.Read(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if r, ok := m.(*jsonrpc.Request); ok && r.ID.IsValid() {
			ids = append(ids, r.ID)
		}
	}
	go func() {
		for i := len(ids) - 1; i >= 0; i-- {
			c.Write(ctx, &jsonrpc.Response{ID: ids[i], Result: json.RawMessage(`{}`)})
		}
	}()
	out.Scan()
	if got, want := out.Text(), `[{"jsonrpc":"2.0","id":1,"result":{}},{"jsonrpc":"2.0","id":"b","result":{}}]`; got != want {
		t.Errorf("wrote %s, want %s", got, want)
	}
}
