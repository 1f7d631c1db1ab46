package api

import (
	"math"
	"strconv"
	"sync"
	"time"

	"github.com/gin-gonic/gin"
	"golang.org/x/time/rate"

	"github.com/earshot/earshot/api/problem"
	"github.com/earshot/earshot/api/tenant"
)

// rateLimiter is a token bucket per caller (CONTRACT §1); a caller over its
// rate gets 429 with Retry-After in whole seconds.
type rateLimiter struct {
	perSec float64
	burst  int
	keyOf  func(*gin.Context) string

	mu        sync.Mutex
	buckets   map[string]*bucket
	lastSweep time.Time
}

type bucket struct {
	limiter *rate.Limiter
	seen    time.Time
}

// idleBucketTTL is how long an unused bucket is kept; a bucket idle that
// long is full again anyway, so dropping it changes nothing.
const idleBucketTTL = 10 * time.Minute

func byClientID(c *gin.Context) string {
	p, _ := tenant.From(c.Request.Context())
	return "client:" + p.ClientID
}

func byClientIP(c *gin.Context) string { return "ip:" + c.ClientIP() }

func newRateLimiter(perSec float64, burst int, keyOf func(*gin.Context) string) *rateLimiter {
	if burst < 1 {
		burst = 1
	}
	return &rateLimiter{perSec: perSec, burst: burst, keyOf: keyOf, buckets: map[string]*bucket{}, lastSweep: time.Now()}
}

func (rl *rateLimiter) middleware(c *gin.Context) {
	if rl.perSec <= 0 {
		return
	}
	now := time.Now()
	res := rl.limiter(rl.keyOf(c), now).ReserveN(now, 1)
	delay := res.DelayFrom(now)
	if !res.OK() || delay > 0 {
		res.CancelAt(now)
		seconds := max(int(math.Ceil(delay.Seconds())), 1)
		problem.Write(c, tooMany(seconds, "Too many requests from this client; retry after "+strconv.Itoa(seconds)+" second(s)."))
	}
}

func (rl *rateLimiter) limiter(key string, now time.Time) *rate.Limiter {
	rl.mu.Lock()
	defer rl.mu.Unlock()
	if now.Sub(rl.lastSweep) > idleBucketTTL {
		for k, b := range rl.buckets {
			if now.Sub(b.seen) > idleBucketTTL {
				delete(rl.buckets, k)
			}
		}
		rl.lastSweep = now
	}
	b, ok := rl.buckets[key]
	if !ok {
		b = &bucket{limiter: rate.NewLimiter(rate.Limit(rl.perSec), rl.burst)}
		rl.buckets[key] = b
	}
	b.seen = now
	return b.limiter
}
