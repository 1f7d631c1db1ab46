// Package cputime reads the CPU time a benchmark's process has used: a
// steadier measure of work than wall time on a shared machine.
package cputime

import (
	"syscall"
	"time"
)

// Self is the CPU time this process has used (user and system, every
// thread: the garbage collector's work counts).
func Self() time.Duration { return usage(syscall.RUSAGE_SELF) }

// Children is the CPU time of this process's children that have ended and
// been waited for (ffmpeg's runs).
func Children() time.Duration { return usage(syscall.RUSAGE_CHILDREN) }

func usage(who int) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(who, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
