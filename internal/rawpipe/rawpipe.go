// Package rawpipe reads and writes a pipe that Go's netpoller already waits
// on, making each read and write a raw system call.
//
// A process serving one host over pipes runs on one P and spends most of
// its time with that P idle, waiting for the host or the upstream server.
// The runtime's monitor thread (sysmon) then sleeps, and every ordinary
// system call wakes it again (the runtime's entersyscall), after which it
// polls every 20 µs until the P is idle again: a futex wake and a few
// sleeps of another thread per line read or written. A read or write of a
// non-blocking pipe cannot block, so it needs none of that bookkeeping;
// the waiting is still the netpoller's, through the file's RawConn, and
// deadlines and Close work as on the *os.File.
package rawpipe

import (
	"io"
	"os"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

// Pipe is a pollable *os.File read and written with raw system calls.
type Pipe struct {
	f      *os.File
	rc     syscall.RawConn
	closed atomic.Bool // the RawConn's own error for a closed file is not os.ErrClosed

	rmu   sync.Mutex // one read at a time: rbuf and the results below
	rbuf  []byte
	rn    int
	rerr  syscall.Errno
	read  func(fd uintptr) bool // built once: a closure per call would allocate
	wmu   sync.Mutex
	wbuf  []byte
	wn    int
	werr  syscall.Errno
	write func(fd uintptr) bool
}

// Wrap returns f read and written through raw system calls when f is a
// pipe or socket whose reads wait in the netpoller, and f itself
// otherwise (a regular file, a terminal, a blocking descriptor, or a
// platform without raw calls).
func Wrap(f *os.File) io.ReadWriteCloser {
	if !supported || f.SetDeadline(time.Time{}) != nil { // not in the netpoller
		return f
	}
	rc, err := f.SyscallConn()
	if err != nil {
		return f
	}
	p := &Pipe{f: f, rc: rc}
	p.read = p.readOnce
	p.write = p.writeAll
	return p
}

// File is the wrapped file.
func (p *Pipe) File() *os.File { return p.f }

// Close closes the file; a read or write waiting on it returns an error.
func (p *Pipe) Close() error {
	p.closed.Store(true)
	return p.f.Close()
}

// failed is err from the RawConn as the *os.File would report it.
func (p *Pipe) failed(op string, err error) error {
	if p.closed.Load() {
		err = os.ErrClosed
	}
	return &os.PathError{Op: op, Path: p.f.Name(), Err: err}
}

func (p *Pipe) Read(b []byte) (int, error) {
	if len(b) == 0 {
		return 0, nil
	}
	p.rmu.Lock()
	defer p.rmu.Unlock()
	p.rbuf, p.rn, p.rerr = b, 0, 0
	err := p.rc.Read(p.read)
	p.rbuf = nil
	switch {
	case err != nil:
		return 0, p.failed("read", err)
	case p.rerr != 0:
		return 0, &os.PathError{Op: "read", Path: p.f.Name(), Err: p.rerr}
	case p.rn == 0:
		return 0, io.EOF
	}
	return p.rn, nil
}

// readOnce reads once into rbuf; false asks the netpoller to wait.
func (p *Pipe) readOnce(fd uintptr) bool {
	for {
		n, errno := rawRead(fd, p.rbuf)
		switch errno {
		case syscall.EINTR:
			continue
		case syscall.EAGAIN:
			return false
		}
		p.rn, p.rerr = n, errno
		return true
	}
}

func (p *Pipe) Write(b []byte) (int, error) {
	if len(b) == 0 {
		return 0, nil
	}
	p.wmu.Lock()
	defer p.wmu.Unlock()
	p.wbuf, p.wn, p.werr = b, 0, 0
	err := p.rc.Write(p.write)
	n := p.wn
	p.wbuf = nil
	switch {
	case err != nil:
		return n, p.failed("write", err)
	case p.werr != 0:
		return n, &os.PathError{Op: "write", Path: p.f.Name(), Err: p.werr}
	}
	return n, nil
}

// writeAll writes wbuf whole; false (the pipe is full) asks the
// netpoller to wait until it has room.
func (p *Pipe) writeAll(fd uintptr) bool {
	for p.wn < len(p.wbuf) {
		n, errno := rawWrite(fd, p.wbuf[p.wn:])
		switch errno {
		case 0:
			p.wn += n
		case syscall.EINTR:
		case syscall.EAGAIN:
			return false
		default:
			p.werr = errno
			return true
		}
	}
	return true
}
