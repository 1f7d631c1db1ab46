package cli

import (
	"os"
	"runtime/debug"
	"runtime/metrics"

	"github.com/KimMachineGun/automemlimit/memlimit"
)

// Garbage collection of earshot's processes. Ingest allocates a great
// deal of memory that lives for one batch beside a small live heap: with
// Go's default (GOGC=100) the collector runs each time the heap doubles
// that small set, and on a machine with idle cores its idle workers take
// them too (docs/adr/0013). So a process collects when
// its heap has grown by twice what is live, under a soft limit of half the
// memory its container (cgroup) or machine gives it: near the limit the
// collector runs sooner, so the headroom never costs the memory it lacks.
const (
	defaultGCPercent = 200
	memoryLimitShare = 0.5
)

// tuneGC sets the collector for a process, leaving what the operator set:
// GOGC and GOMEMLIMIT win, and AUTOMEMLIMIT=off or a share (0 to 1) of
// the memory replaces the limit's.
func tuneGC() {
	if _, set := os.LookupEnv("GOGC"); !set {
		debug.SetGCPercent(defaultGCPercent)
	}
	// An error leaves Go's default (no limit): a machine whose memory
	// cannot be read runs as it always did.
	_, _ = memlimit.Set(memlimit.WithRatio(memoryLimitShare),
		memlimit.WithProvider(memlimit.ApplyFallback(memlimit.FromCgroup, memlimit.FromSystem)))
}

// gcSettings are the collector's settings in effect: GOGC's percentage
// (-1: off) and the soft memory limit in bytes (math.MaxInt64: none).
func gcSettings() (percent, memoryLimit int64) {
	samples := []metrics.Sample{{Name: "/gc/gogc:percent"}, {Name: "/gc/gomemlimit:bytes"}}
	metrics.Read(samples)
	return int64(samples[0].Value.Uint64()), int64(samples[1].Value.Uint64())
}
