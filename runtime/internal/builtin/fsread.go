package builtin

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"syscall"
	"unicode/utf8"

	"github.com/toolgen-dev/toolgen/internal/filekind"
)

// DefaultMaxReadBytes caps one fs_read result when the policy sets no limit.
const DefaultMaxReadBytes = 256 << 10

// binarySniffBytes is how much of a file is checked for NUL bytes, the mark of a binary file
// (the same heuristic git and grep use).
const binarySniffBytes = 8000

// FSRead is the fs_read builtin: it returns a UTF-8 text file, or a directory listing, from
// inside the allowed paths.
type FSRead struct {
	dirs     *allowedDirs
	maxBytes int
}

// NewFSRead opens every allowed path (relative ones against workdir) as an os.Root. maxBytes
// caps each result; zero or less means DefaultMaxReadBytes. Files with several hard links are
// refused unless allowHardlinks is set.
func NewFSRead(workdir string, allowedPaths []string, maxBytes int, allowHardlinks bool) (*FSRead, error) {
	dirs, err := openAllowedDirs(workdir, allowedPaths, false)
	if err != nil {
		return nil, fmt.Errorf("fs_read: %w", err)
	}
	dirs.allowHardlinks = allowHardlinks
	if maxBytes <= 0 {
		maxBytes = DefaultMaxReadBytes
	}
	return &FSRead{dirs: dirs, maxBytes: maxBytes}, nil
}

// Close releases the root handles.
func (t *FSRead) Close() error { return t.dirs.close() }

// Schema is the JSON Schema of fs_read's arguments.
func (t *FSRead) Schema() json.RawMessage { return fsReadSchema }

var fsReadSchema = json.RawMessage(`{"type":"object","properties":{` +
	`"path":{"type":"string","description":"File or directory to read, relative to the working directory or absolute; must lie inside an allowed path."},` +
	`"offset":{"type":"integer","minimum":1,"description":"First line (or directory entry) to return, counting from 1. Default 1."},` +
	`"limit":{"type":"integer","minimum":0,"description":"Maximum number of lines (or entries) to return. Default: all, up to the size limit."}` +
	`},"required":["path"],"additionalProperties":false}`)

type fsReadArgs struct {
	Path   string `json:"path"`
	Offset int    `json:"offset"`
	Limit  int    `json:"limit"`
}

// Call reads the file or lists the directory named by args.path.
func (t *FSRead) Call(ctx context.Context, args json.RawMessage) (string, error) {
	var a fsReadArgs
	if err := decodeArgs(args, &a); err != nil {
		return "", err
	}
	if a.Offset < 0 {
		return "", fmt.Errorf("offset must be 1 or more, got %d", a.Offset)
	}
	if a.Limit < 0 {
		return "", fmt.Errorf("limit must be 0 (no limit) or more, got %d", a.Limit)
	}
	if a.Offset == 0 { // omitted (the schema, minimum 1, refuses a 0 a model sends)
		a.Offset = 1
	}
	if err := ctx.Err(); err != nil {
		return "", err
	}
	var out string
	err := t.dirs.do(a.Path, func(d *allowedDir, rel string) error {
		// O_NONBLOCK keeps a FIFO from blocking the open; the type check below then refuses it.
		f, err := d.root.OpenFile(rel, os.O_RDONLY|syscall.O_NONBLOCK, 0)
		if err != nil {
			return err
		}
		defer f.Close()
		fi, err := f.Stat()
		switch {
		case err != nil:
			return err
		case fi.IsDir():
			out, err = t.list(a, f)
		case !fi.Mode().IsRegular():
			err = userErrorf("path %q is %s, not a regular file", a.Path, filekind.Of(fi.Mode()))
		default:
			if err = t.dirs.checkLinks(a.Path, fi); err == nil {
				out, err = t.read(ctx, a, f, fi.Size())
			}
		}
		return err
	})
	return out, err
}

// read returns lines [offset, offset+limit) of the file, at most maxBytes of them.
func (t *FSRead) read(ctx context.Context, a fsReadArgs, f io.Reader, size int64) (string, error) {
	// A buffer the size of a small file (bufio's minimum is 16 bytes), 64 KiB for larger ones.
	br := bufio.NewReaderSize(f, int(min(size+1, 64<<10)))
	if head, _ := br.Peek(binarySniffBytes); bytes.IndexByte(head, 0) >= 0 {
		return "", userErrorf("path %q is a binary file (it contains NUL bytes); fs_read returns text only", a.Path)
	}
	out := make([]byte, 0, min(size, int64(t.maxBytes)))
	note := ""
	lineNo := 0
	for {
		lineNo++
		if lineNo%4096 == 0 && ctx.Err() != nil { // skipping to a far offset can take a while
			return "", ctx.Err()
		}
		if a.Limit > 0 && lineNo-a.Offset >= a.Limit { // not Offset+Limit: it overflows for huge values
			if _, err := br.Peek(1); err == nil {
				note = fmt.Sprintf("[fs_read: stopped at the limit of %d lines; continue with offset=%d]", a.Limit, lineNo)
			}
			break
		}
		keep := 0
		if lineNo >= a.Offset {
			keep = t.maxBytes - len(out)
		}
		line, long, err := readLine(br, keep)
		if err == io.EOF && len(line) == 0 && !long {
			if lineNo <= a.Offset && a.Offset > 1 {
				return "", userErrorf("offset %d is past the end of %q, which has %d lines", a.Offset, a.Path, lineNo-1)
			}
			break
		}
		if err != nil && err != io.EOF {
			return "", userErrorf("reading %q: %v", a.Path, describeOSError(err))
		}
		if lineNo < a.Offset {
			continue
		}
		if long && len(out) > 0 {
			// This line does not fit in what is left; the next call starts with it.
			note = fmt.Sprintf("[fs_read: output truncated at %d bytes of %d; continue with offset=%d]", len(out), size, lineNo)
			break
		}
		if long {
			line = trimPartialRune(line)
		}
		if bytes.IndexByte(line, 0) >= 0 {
			return "", userErrorf("path %q is a binary file (line %d contains NUL bytes); fs_read returns text only", a.Path, lineNo)
		}
		if !utf8.Valid(line) {
			return "", userErrorf("path %q is not UTF-8 text (invalid bytes on line %d); fs_read returns text only", a.Path, lineNo)
		}
		out = append(out, line...)
		if long {
			note = fmt.Sprintf("[fs_read: line %d is longer than the %d-byte limit and was cut; continue with offset=%d]", lineNo, t.maxBytes, lineNo+1)
			break
		}
		if err == io.EOF {
			break
		}
	}
	if note != "" {
		if len(out) > 0 && out[len(out)-1] != '\n' {
			out = append(out, '\n')
		}
		out = append(out, note...)
	}
	return string(out), nil
}

// readLine reads one line including its newline, keeping at most keep bytes of it; long reports
// that the line had more than keep bytes (the rest is consumed and dropped).
func readLine(br *bufio.Reader, keep int) (line []byte, long bool, err error) {
	for {
		piece, err := br.ReadSlice('\n')
		if room := keep - len(line); len(piece) > room {
			long = true
			piece = piece[:room]
		}
		line = append(line, piece...)
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		return line, long, err
	}
}

// trimPartialRune drops a UTF-8 sequence cut off at the end of b.
func trimPartialRune(b []byte) []byte {
	for i := 1; i <= utf8.UTFMax && i <= len(b); i++ {
		if utf8.RuneStart(b[len(b)-i]) {
			if !utf8.FullRune(b[len(b)-i:]) {
				return b[:len(b)-i]
			}
			break
		}
	}
	return b
}

// list returns the directory's entries by name, directories with a trailing "/".
func (t *FSRead) list(a fsReadArgs, f *os.File) (string, error) {
	entries, err := f.ReadDir(-1)
	if err != nil {
		return "", userErrorf("listing %q: %v", a.Path, describeOSError(err))
	}
	names := make([]string, 0, len(entries))
	for _, e := range entries {
		name := e.Name()
		if e.IsDir() {
			name += "/"
		}
		names = append(names, name)
	}
	slices.Sort(names)
	if len(names) == 0 {
		return "(empty directory)", nil
	}
	if a.Offset > len(names) {
		return "", userErrorf("offset %d is past the end of directory %q, which has %d entries", a.Offset, a.Path, len(names))
	}
	var b strings.Builder
	note := ""
	for i := a.Offset - 1; i < len(names); i++ {
		if a.Limit > 0 && i-(a.Offset-1) >= a.Limit {
			note = fmt.Sprintf("[fs_read: %d of %d entries shown; continue with offset=%d]", i-(a.Offset-1), len(names), i+1)
			break
		}
		if b.Len()+len(names[i])+1 > t.maxBytes {
			note = fmt.Sprintf("[fs_read: listing truncated at %d bytes; continue with offset=%d]", b.Len(), i+1)
			break
		}
		b.WriteString(names[i])
		b.WriteByte('\n')
	}
	b.WriteString(note)
	return b.String(), nil
}
