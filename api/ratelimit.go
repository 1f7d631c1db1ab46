package api

import (
	"math"
	"strconv"
	"time"

	"github.com/gin-gonic/gin"

	"github.com/earshot/earshot/api/problem"
	"github.com/earshot/earshot/api/tenant"
	"github.com/earshot/earshot/internal/ratelimit"
)

// rateLimiter is a token bucket per caller (CONTRACT §1); a caller over its
// rate gets 429 with Retry-After in whole seconds.
type rateLimiter struct {
	perSec  float64
	buckets *ratelimit.Keyed
	keyOf   func(*gin.Context) string
}

func byClientID(c *gin.Context) string {
	p, _ := tenant.From(c.Request.Context())
	return "client:" + p.ClientID
}

func byClientIP(c *gin.Context) string { return "ip:" + c.ClientIP() }

func newRateLimiter(perSec float64, burst int, keyOf func(*gin.Context) string) *rateLimiter {
	return &rateLimiter{perSec: perSec, buckets: ratelimit.NewKeyed(perSec, burst), keyOf: keyOf}
}

func (rl *rateLimiter) middleware(c *gin.Context) {
	if rl.perSec <= 0 {
		return
	}
	now := time.Now()
	res := rl.buckets.Limiter(rl.keyOf(c), now).ReserveN(now, 1)
	delay := res.DelayFrom(now)
	if !res.OK() || delay > 0 {
		res.CancelAt(now)
		seconds := max(int(math.Ceil(delay.Seconds())), 1)
		problem.Write(c, tooMany(seconds, "Too many requests from this client; retry after "+strconv.Itoa(seconds)+" second(s)."))
	}
}
