// Package handoffs counts how often a benchmark's process handed work
// from one goroutine or thread to another: goroutines started, and
// threads that gave up their core to wait for something (voluntary
// context switches, each a sleep and a wake-up). Such hand-offs cost little
// on two busy cores and most on a machine of many idle ones, where each
// wake-up may start a thread looking for work: the counts are the part of
// that cost a small machine can measure.
package handoffs

import (
	"runtime/metrics"
	"syscall"
)

// Counts are the process's hand-offs up to a moment.
type Counts struct {
	Goroutines uint64 // goroutines started
	Waits      uint64 // threads that waited (voluntary context switches)
}

// Now is the process's counts so far.
func Now() Counts {
	sample := []metrics.Sample{{Name: "/sched/goroutines-created:goroutines"}}
	metrics.Read(sample)
	var c Counts
	if sample[0].Value.Kind() == metrics.KindUint64 {
		c.Goroutines = sample[0].Value.Uint64()
	}
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) == nil {
		c.Waits = uint64(ru.Nvcsw)
	}
	return c
}

// Since is the counts from start to c.
func (c Counts) Since(start Counts) Counts {
	return Counts{Goroutines: c.Goroutines - start.Goroutines, Waits: c.Waits - start.Waits}
}
