//go:build unix

// Package cputime gives the CPU time this process has used, for benchmarks that
// report it beside the wall clock (cpu-ns/op).
package cputime

import (
	"syscall"
	"time"
)

// Process is the CPU time the process has used so far, user and system: on a shared
// machine it measures the work better than the wall clock, which counts the time other
// processes held the CPU. It is 0 where it cannot be read.
func Process() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
