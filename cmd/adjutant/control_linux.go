package main

import (
	"fmt"
	"net"
	"syscall"

	"golang.org/x/sys/unix"
)

// peerUID is the user of the process at the other end of a Unix socket connection, as
// the kernel recorded it when that process connected or listened (SO_PEERCRED).
func peerUID(conn net.Conn) (int, error) {
	sc, ok := conn.(syscall.Conn)
	if !ok {
		return 0, fmt.Errorf("a %T is no socket", conn)
	}
	raw, err := sc.SyscallConn()
	if err != nil {
		return 0, err
	}
	var cred *unix.Ucred
	var credErr error
	if err := raw.Control(func(fd uintptr) {
		cred, credErr = unix.GetsockoptUcred(int(fd), unix.SOL_SOCKET, unix.SO_PEERCRED)
	}); err != nil {
		return 0, err
	}
	if credErr != nil {
		return 0, fmt.Errorf("SO_PEERCRED: %w", credErr)
	}
	return int(cred.Uid), nil
}
