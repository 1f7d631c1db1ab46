// Package memwatch measures a process's peak resident memory over a
// stretch of work, for benchmarks that report it.
package memwatch

import (
	"os"
	"strconv"
	"strings"
	"sync/atomic"
	"time"
)

// RSSKiB is this process's resident set size, from /proc.
func RSSKiB() int64 {
	data, _ := os.ReadFile("/proc/self/status")
	for _, line := range strings.Split(string(data), "\n") {
		if strings.HasPrefix(line, "VmRSS:") {
			n, _ := strconv.ParseInt(strings.Fields(line)[1], 10, 64)
			return n
		}
	}
	return 0
}

// Peak is what a watch saw, in MiB.
type Peak struct {
	// Resident is the highest resident set of the process.
	Resident float64
	// Growth is that over the resident set at the start.
	Growth float64
}

// Start samples the resident set every few milliseconds; the returned
// function stops and reports the peak.
func Start() (stop func() Peak) {
	base := RSSKiB()
	var peak atomic.Int64
	peak.Store(base)
	done := make(chan struct{})
	finished := make(chan struct{})
	go func() {
		defer close(finished)
		for {
			select {
			case <-done:
				return
			case <-time.After(5 * time.Millisecond):
				if r := RSSKiB(); r > peak.Load() {
					peak.Store(r)
				}
			}
		}
	}()
	return func() Peak {
		close(done)
		<-finished
		return Peak{Resident: float64(peak.Load()) / 1024, Growth: float64(peak.Load()-base) / 1024}
	}
}
