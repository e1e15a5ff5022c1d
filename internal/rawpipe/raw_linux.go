package rawpipe

import (
	"syscall"
	"unsafe"
)

const supported = true

// maxRW keeps one call's count within what the kernel takes at once.
const maxRW = 1 << 30

func rawRead(fd uintptr, b []byte) (int, syscall.Errno) {
	if len(b) > maxRW {
		b = b[:maxRW]
	}
	n, _, errno := syscall.RawSyscall(syscall.SYS_READ, fd, uintptr(unsafe.Pointer(&b[0])), uintptr(len(b)))
	return int(n), errno
}

func rawWrite(fd uintptr, b []byte) (int, syscall.Errno) {
	if len(b) > maxRW {
		b = b[:maxRW]
	}
	n, _, errno := syscall.RawSyscall(syscall.SYS_WRITE, fd, uintptr(unsafe.Pointer(&b[0])), uintptr(len(b)))
	return int(n), errno
}
