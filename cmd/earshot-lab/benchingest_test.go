package main

import (
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
