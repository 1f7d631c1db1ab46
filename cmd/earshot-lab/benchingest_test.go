package main

import (
	"errors"
	"os"
	"runtime"
	"sync"
	"syscall"
	"testing"
	"time"
)

// The median run is the middle one by wall time (the slower middle one of
// an even count), and the range spans every run's rate.
func TestMedianRun(t *testing.T) {
	t.Parallel()
	run := func(ms int) ingestResult {
		return ingestResult{conversations: 1000, wall: time.Duration(ms) * time.Millisecond}
	}
	for _, c := range []struct {
		walls           []int
		median          time.Duration
		lowest, highest float64
	}{
		{[]int{500}, 500 * time.Millisecond, 2000, 2000},
		{[]int{400, 1000, 500}, 500 * time.Millisecond, 1000, 2500},
		{[]int{500, 250, 1000, 400}, 500 * time.Millisecond, 1000, 4000},
	} {
		var runs []ingestResult
		for _, w := range c.walls {
			runs = append(runs, run(w))
		}
		got, lo, hi := medianRun(runs)
		if got.wall != c.median || lo != c.lowest || hi != c.highest {
			t.Errorf("%v: median %v, range %.0f–%.0f; want %v, %.0f–%.0f", c.walls, got.wall, lo, hi, c.median, c.lowest, c.highest)
		}
		if runs[0].wall != time.Duration(c.walls[0])*time.Millisecond {
			t.Errorf("%v: the runs were reordered in place", c.walls)
		}
	}
}

// A paired cost is the median of each round's second run beside its
// first, in percent (the mean of the middle two of an even count), with
// the lowest and highest rounds.
func TestPairedCost(t *testing.T) {
	t.Parallel()
	runs := func(ms ...int) (out []ingestResult) {
		for _, m := range ms {
			out = append(out, ingestResult{wall: time.Duration(m) * time.Millisecond})
		}
		return out
	}
	wall := func(r ingestResult) time.Duration { return r.wall }
	for _, c := range []struct {
		first, second       []ingestResult
		median, lowest, top float64
	}{
		{runs(1000), runs(1050), 5, 5, 5},
		// A slow round moves both runs: the pairs, not the medians, are compared.
		{runs(1000, 2000, 1000), runs(1100, 2000, 900), 0, -10, 10},
		{runs(1000, 1000, 1000, 1000), runs(1010, 1030, 990, 1100), 2, -1, 10},
	} {
		m, lo, hi := pairedCost(c.first, c.second, wall)
		if !near(m, c.median) || !near(lo, c.lowest) || !near(hi, c.top) {
			t.Errorf("%v beside %v: %.2f %% (%.2f to %.2f); want %.2f %% (%.2f to %.2f)", c.second, c.first, m, lo, hi, c.median, c.lowest, c.top)
		}
	}
}

func near(a, b float64) bool { return a-b < 1e-9 && b-a < 1e-9 }

// processWaits counts every thread's waits: threads of this process
// that slept sleeps times each have waited as many times more, all of
// them (at most one of them can be the first thread, whose own status is
// the process's).
func TestProcessWaits(t *testing.T) {
	const threads, sleeps = 4, 50
	before, err := processWaits(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	errs := make([]error, threads)
	for i := range threads {
		wg.Go(func() {
			runtime.LockOSThread() // a thread each, kept after (unlocked)
			defer runtime.UnlockOSThread()
			for range sleeps {
				errs[i] = errors.Join(errs[i], syscall.Nanosleep(&syscall.Timespec{Nsec: int64(100 * time.Microsecond)}, nil))
			}
		})
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		t.Fatal(err)
	}
	after, err := processWaits(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	if after-before < threads*sleeps {
		t.Errorf("waits %d before, %d after %d threads slept %d times each", before, after, threads, sleeps)
	}
	if _, err := processWaits(1 << 30); err == nil {
		t.Error("a process that does not exist has waits")
	}
}
