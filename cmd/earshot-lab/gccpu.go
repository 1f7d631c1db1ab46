package main

import (
	"context"
	"fmt"
	"net/http"
	"time"

	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
)

// gcCPU is the CPU a server's garbage collector has used so far, by the
// Go runtime's estimate that its /metrics serves: all of it, and of it the
// marking done on cores that had nothing else to run. On a machine of
// many cores the idle marking can be a large share of the process's CPU
// while it costs no wall time.
type gcCPU struct{ total, idle time.Duration }

// The runtime's metrics /metrics serves them as (client_golang's names).
const (
	gcTotalMetric = "go_cpu_classes_gc_total_cpu_seconds_total"
	gcIdleMetric  = "go_cpu_classes_gc_mark_idle_cpu_seconds_total"
)

// readGCCPU reads a server's gcCPU from its /metrics; ok is false when it
// does not serve them (an earlier build).
func readGCCPU(ctx context.Context, base string) (_ gcCPU, ok bool, err error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, base+"/metrics", nil)
	if err != nil {
		return gcCPU{}, false, err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return gcCPU{}, false, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return gcCPU{}, false, fmt.Errorf("GET /metrics: %s", resp.Status)
	}
	parser := expfmt.NewTextParser(model.UTF8Validation)
	families, err := parser.TextToMetricFamilies(resp.Body)
	if err != nil {
		return gcCPU{}, false, fmt.Errorf("read /metrics: %w", err)
	}
	seconds := func(name string) (time.Duration, bool) {
		f := families[name]
		if f == nil || len(f.GetMetric()) != 1 {
			return 0, false
		}
		return time.Duration(f.GetMetric()[0].GetCounter().GetValue() * float64(time.Second)), true
	}
	total, okTotal := seconds(gcTotalMetric)
	idle, okIdle := seconds(gcIdleMetric)
	return gcCPU{total: total, idle: idle}, okTotal && okIdle, nil
}

// since is what was used between an earlier reading and this one.
func (g gcCPU) since(earlier gcCPU) gcCPU {
	return gcCPU{total: g.total - earlier.total, idle: g.idle - earlier.idle}
}
