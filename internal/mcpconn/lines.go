package mcpconn

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
)

// jsonLines enforces the stdio framing (one JSON-RPC message per line) on a
// server's stdout before the go-sdk decodes it. Lines that are not a whole
// JSON value — banners, stray debug prints, a half-written message — are
// dropped and reported: passed through, the first would end the session and
// the last would make the decoder swallow the next message and hang.
type jsonLines struct {
	src       io.ReadCloser
	sc        *bufio.Scanner
	max       int
	buf       []byte
	pending   []byte
	onGarbage func(line string)
}

func newJSONLines(src io.ReadCloser, max int, onGarbage func(string)) *jsonLines {
	sc := bufio.NewScanner(src)
	sc.Buffer(make([]byte, 0, 64<<10), max)
	return &jsonLines{src: src, sc: sc, max: max, onGarbage: onGarbage}
}

func (j *jsonLines) Read(p []byte) (int, error) {
	if len(j.pending) == 0 {
		line, err := j.Next()
		if err != nil {
			return 0, err
		}
		j.buf = append(append(j.buf[:0], line...), '\n')
		j.pending = j.buf
	}
	n := copy(p, j.pending)
	j.pending = j.pending[n:]
	return n, nil
}

// Next returns the next line that is one JSON object or array, valid
// until the following call.
func (j *jsonLines) Next() ([]byte, error) {
	for {
		if !j.sc.Scan() {
			err := j.sc.Err()
			if errors.Is(err, bufio.ErrTooLong) {
				return nil, fmt.Errorf("server sent a message over the %d-byte limit", j.max)
			}
			if err == nil {
				err = io.EOF
			}
			return nil, err
		}
		line := bytes.TrimSpace(j.sc.Bytes())
		if len(line) == 0 {
			continue
		}
		if (line[0] == '{' || line[0] == '[') && json.Valid(line) {
			return line, nil
		}
		j.onGarbage(string(line))
	}
}

func (j *jsonLines) Close() error { return j.src.Close() }
