// Package ratelimit keeps a token bucket per key (a client, an address,
// an account), dropping the buckets idle long enough to be full again.
package ratelimit

import (
	"sync"
	"time"

	"golang.org/x/time/rate"
)

// Keyed is a token bucket per key.
type Keyed struct {
	perSec float64
	burst  int

	mu        sync.Mutex
	buckets   map[string]*bucket
	lastSweep time.Time
}

type bucket struct {
	limiter *rate.Limiter
	seen    time.Time
}

// idleTTL is how long an unused bucket is kept; a bucket idle that long
// is full again anyway, so dropping it changes nothing.
const idleTTL = 10 * time.Minute

// NewKeyed makes buckets of perSec tokens a second, burst at most.
func NewKeyed(perSec float64, burst int) *Keyed {
	return &Keyed{perSec: perSec, burst: max(burst, 1), buckets: map[string]*bucket{}, lastSweep: time.Now()}
}

// Limiter is key's bucket.
func (k *Keyed) Limiter(key string, now time.Time) *rate.Limiter {
	k.mu.Lock()
	defer k.mu.Unlock()
	if now.Sub(k.lastSweep) > idleTTL {
		for name, b := range k.buckets {
			if now.Sub(b.seen) > idleTTL {
				delete(k.buckets, name)
			}
		}
		k.lastSweep = now
	}
	b, ok := k.buckets[key]
	if !ok {
		b = &bucket{limiter: rate.NewLimiter(rate.Limit(k.perSec), k.burst)}
		k.buckets[key] = b
	}
	b.seen = now
	return b.limiter
}
