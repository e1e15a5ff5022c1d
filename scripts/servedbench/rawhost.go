package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os/exec"
	"regexp"
	"strconv"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// rawHost is a host that writes the lines go-sdk's client wrote for the
// same revision (recorded once, see record) and reads the answers as
// lines: its own work per call is one write and one read, the same for
// both revisions. Through go-sdk's client a 2026-07-28 call also costs
// the host more (every request carries the client's info and
// capabilities), which is the host library's cost, not the served
// path's; raw25 and raw26 leave only the agent's to compare.
type rawHost struct {
	cmd    *exec.Cmd
	w      io.WriteCloser
	r      *bufio.Reader
	prefix []byte // the call's line up to its id
	suffix []byte // and after it
	id     int64
	line   []byte // the request being written, reused
	want   []byte // `"id":N,` of the answer awaited
}

// record starts an agent with cmd, connects go-sdk's client to it at
// version through a writer that keeps what it writes, and makes one call
// of tool: the lines written before the call (the handshake, none for a
// 2026-07-28 host) and the call's own line.
func record(ctx context.Context, cmd *exec.Cmd, version, tool string, args map[string]any) (handshake [][]byte, call []byte, err error) {
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, nil, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, nil, err
	}
	defer func() {
		in.Close() // its end of input: the agent exits, whatever failed
		cmd.Wait()
	}()
	rec := &recorder{w: in}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "servedbench", Version: "1"}, nil).Connect(ctx,
		&mcp.IOTransport{Reader: out, Writer: rec}, &mcp.ClientSessionOptions{ProtocolVersion: version})
	if err != nil {
		return nil, nil, err
	}
	defer cs.Close()
	n := len(rec.lines())
	if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: args}); err != nil {
		return nil, nil, err
	}
	lines := rec.lines()
	for _, l := range lines[n:] {
		if bytes.Contains(l, []byte(`"method":"tools/call"`)) {
			return lines[:n], l, nil
		}
	}
	return nil, nil, fmt.Errorf("%s: no tools/call line among %q", version, lines[n:])
}

// recorder passes writes on and keeps them.
type recorder struct {
	w   io.WriteCloser
	mu  sync.Mutex
	buf bytes.Buffer
}

func (r *recorder) Write(p []byte) (int, error) {
	r.mu.Lock()
	r.buf.Write(p)
	r.mu.Unlock()
	return r.w.Write(p)
}

func (r *recorder) Close() error { return r.w.Close() }

// lines is what was written so far, a line each (newline included).
func (r *recorder) lines() [][]byte {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out [][]byte
	for _, l := range bytes.SplitAfter(r.buf.Bytes(), []byte("\n")) {
		if len(l) > 0 {
			out = append(out, bytes.Clone(l))
		}
	}
	return out
}

var idMember = regexp.MustCompile(`"id":[0-9]+`)

// startRaw starts cmd as a raw host's agent: the handshake's lines are
// written as recorded (each request's answer read before the next line),
// then calls write call's line with ids of their own.
func startRaw(cmd *exec.Cmd, handshake [][]byte, call []byte) (*rawHost, error) {
	loc := idMember.FindIndex(call)
	if loc == nil {
		return nil, fmt.Errorf("no integer id in %q", call)
	}
	h := &rawHost{cmd: cmd, prefix: bytes.Clone(call[:loc[0]+len(`"id":`)]), suffix: bytes.Clone(call[loc[1]:]), id: 1 << 20}
	var err error
	if h.w, err = cmd.StdinPipe(); err != nil {
		return nil, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	h.r = bufio.NewReaderSize(out, 1<<20)
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	for _, l := range handshake {
		if _, err := h.w.Write(l); err != nil {
			return nil, err
		}
		var m struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
		}
		if json.Unmarshal(l, &m) != nil || m.ID == nil || m.Method == "" {
			continue // a notification: no answer
		}
		if _, err := h.answer(append(append([]byte(`"id":`), m.ID...), ',')); err != nil {
			return nil, fmt.Errorf("%s: %w", m.Method, err)
		}
	}
	return h, nil
}

// call makes one call and checks its answer is a result without isError.
func (h *rawHost) call() error {
	h.id++
	h.line = append(strconv.AppendInt(append(h.line[:0], h.prefix...), h.id, 10), h.suffix...)
	if _, err := h.w.Write(h.line); err != nil {
		return err
	}
	h.want = append(strconv.AppendInt(append(h.want[:0], `"id":`...), h.id, 10), ',')
	line, err := h.answer(h.want)
	if err != nil {
		return err
	}
	if !bytes.Contains(line, []byte(`"result":`)) || bytes.Contains(line, []byte(`"isError":true`)) {
		return fmt.Errorf("not a result: %.200s", line)
	}
	return nil
}

// answer reads lines until the answer with id (`"id":N,`), passing over
// the agent's notifications; the line is valid until the next read.
func (h *rawHost) answer(id []byte) ([]byte, error) {
	for {
		line, err := h.r.ReadSlice('\n')
		if err != nil {
			return nil, err
		}
		if bytes.Contains(line, id) && !bytes.Contains(line, []byte(`"method":`)) {
			return line, nil
		}
	}
}

func (h *rawHost) close() {
	h.w.Close()
	h.cmd.Wait()
}
