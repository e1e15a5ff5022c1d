package mcpconn

import (
	"os/exec"
	"runtime"
	"sync"
	"syscall"
)

// startChild starts cmd with a parent-death signal: if the agent dies, even
// by SIGKILL where no teardown runs, the kernel kills the server too, rather
// than leaving it to init when it ignores stdin EOF. done must be called
// once the child has been reaped.
//
// The signal is sent when the *thread* that forked the child exits, not the
// process. Go moves goroutines between threads and ends a thread whenever a
// goroutine exits while locked to it (which any library may do, for
// example after entering a namespace), so a child forked from an arbitrary
// thread could be killed at random. Children are therefore forked from one
// thread that a goroutine holds locked, so nothing else ever runs on it;
// it exits only when no child it started is left (Locking around Start
// alone would hand the thread back to the pool, where such a goroutine
// could take it and end it).
func startChild(cmd *exec.Cmd) (done func(), err error) {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Pdeathsig = syscall.SIGKILL
	return forks.start(cmd)
}

// forks is the forking thread and the number of its children alive.
var forks forker

type forker struct {
	mu   sync.Mutex
	reqs chan forkReq // nil while no thread runs
	live int          // children started (or being started) and not reaped
}

type forkReq struct {
	cmd  *exec.Cmd
	done chan error
}

func (f *forker) start(cmd *exec.Cmd) (func(), error) {
	f.mu.Lock()
	if f.reqs == nil {
		f.reqs = make(chan forkReq)
		go forkThread(f.reqs)
	}
	f.live++ // before the request: the thread must not quit under it
	reqs := f.reqs
	f.mu.Unlock()

	req := forkReq{cmd: cmd, done: make(chan error, 1)}
	reqs <- req
	if err := <-req.done; err != nil {
		f.release()
		return nil, err
	}
	var once sync.Once
	return func() { once.Do(f.release) }, nil
}

func (f *forker) release() {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.live--; f.live == 0 {
		close(f.reqs)
		f.reqs = nil
	}
}

// forkThread starts every child asked for on its own locked thread. It
// returns still locked, so the thread ends with it: by then every child it
// forked has been reaped.
func forkThread(reqs <-chan forkReq) {
	runtime.LockOSThread()
	for r := range reqs {
		r.done <- r.cmd.Start()
	}
}
