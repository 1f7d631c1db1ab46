// Package timing records how long the steps of one request take, for its
// Server-Timing response header (W3C Server Timing): the lake query, the
// catalog check, the results' fetch, the JSON. Browsers' developer tools
// and earshot bench query read it. Without a recorder in the context
// (jobs, tests) a step costs nothing.
package timing

import (
	"context"
	"maps"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Steps are a request's timed steps; a step run several times (a page
// read in batches) adds up.
type Steps struct {
	mu    sync.Mutex
	names []string
	took  map[string]time.Duration
}

type key struct{}

// With is ctx with a new recorder of steps.
func With(ctx context.Context) (context.Context, *Steps) {
	s := &Steps{took: map[string]time.Duration{}}
	return context.WithValue(ctx, key{}, s), s
}

// Start times a step of the request in ctx until the returned func is
// called.
func Start(ctx context.Context, name string) (stop func()) {
	s, _ := ctx.Value(key{}).(*Steps)
	if s == nil {
		return func() {}
	}
	began := time.Now()
	return func() { s.Add(name, time.Since(began)) }
}

// Add records that a step took d.
func (s *Steps) Add(name string, d time.Duration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, seen := s.took[name]; !seen {
		s.names = append(s.names, name)
	}
	s.took[name] += d
}

// Took is how long each step took, by name.
func (s *Steps) Took() map[string]time.Duration {
	s.mu.Lock()
	defer s.mu.Unlock()
	return maps.Clone(s.took)
}

// Header is the steps as a Server-Timing value, in the order they first
// ran: "lake;dur=7.12, verify;dur=1.05".
func (s *Steps) Header() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	parts := make([]string, len(s.names))
	for i, n := range s.names {
		parts[i] = n + ";dur=" + strconv.FormatFloat(float64(s.took[n].Microseconds())/1000, 'f', 2, 64)
	}
	return strings.Join(parts, ", ")
}

// maxMillis bounds a parsed duration (a day): larger ones are no step's.
const maxMillis = 24 * 60 * 60 * 1000

// Parse reads a Server-Timing value into durations by step name (unknown
// or malformed entries are left out).
func Parse(header string) map[string]time.Duration {
	out := map[string]time.Duration{}
	for _, entry := range strings.Split(header, ",") {
		fields := strings.Split(strings.TrimSpace(entry), ";")
		for _, f := range fields[1:] {
			if v, ok := strings.CutPrefix(strings.TrimSpace(f), "dur="); ok {
				if ms, err := strconv.ParseFloat(v, 64); err == nil && ms >= 0 && ms < maxMillis {
					out[fields[0]] += time.Duration(ms * float64(time.Millisecond))
				}
			}
		}
	}
	return out
}
