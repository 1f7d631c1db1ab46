package api

import (
	"context"
	"math"
	"net/http"
	"runtime"
	"strconv"
	"sync"
	"time"

	"github.com/gin-gonic/gin"

	"github.com/earshot/earshot/api/problem"
)

// A secret check (bcrypt) costs a core tens of milliseconds, so wrong
// secrets are the cheapest way to load the server. The token endpoint
// limits them:
//   - each address may fail a few times, then waits for its budget to
//     refill (429 with Retry-After, no check made);
//   - so may each client id, except from an address it has authenticated
//     from before: guessing one client's secret from many addresses stops,
//     and the client itself is not locked out by it;
//   - secrets are checked a few at a time, so that a flood from many
//     addresses still leaves cores to everyone else.
const (
	failuresPerMinute = 10 // refill of each budget
	failureBurst      = 20 // a budget when full
	// checkWait is how long a request waits for a free secret check before
	// it is told to retry.
	checkWait = 2 * time.Second
	// knownFor is how long an address stays known for a client after it
	// authenticated from there.
	knownFor = 24 * time.Hour
)

// tokenGuard holds the failure budgets and the secret checks in progress.
type tokenGuard struct {
	failures *rateLimiter // keyed "ip:…" and "client:…"
	checks   chan struct{}
	wait     time.Duration

	mu    sync.Mutex
	known map[string]time.Time // "client|ip" → last success
}

func newTokenGuard() *tokenGuard {
	return &tokenGuard{
		failures: newRateLimiter(failuresPerMinute/60.0, failureBurst, nil),
		checks:   make(chan struct{}, max(1, runtime.GOMAXPROCS(0)/2)),
		wait:     checkWait,
		known:    map[string]time.Time{},
	}
}

// budgets are the failure budgets an attempt draws on.
func (g *tokenGuard) budgets(c *gin.Context, clientID string, now time.Time) []string {
	keys := []string{"ip:" + c.ClientIP()}
	g.mu.Lock()
	defer g.mu.Unlock()
	if last, ok := g.known[clientID+"|"+c.ClientIP()]; !ok || now.Sub(last) > knownFor {
		keys = append(keys, "client:"+clientID)
	}
	return keys
}

// blocked answers 429 when a budget of the attempt is spent, and tells
// whether it did.
func (g *tokenGuard) blocked(c *gin.Context, clientID string) bool {
	now := time.Now()
	for _, key := range g.budgets(c, clientID, now) {
		lim := g.failures.limiter(key, now)
		if tokens := lim.TokensAt(now); tokens < 1 {
			seconds := max(int(math.Ceil((1-tokens)/float64(lim.Limit()))), 1)
			tooMany(c, seconds, "Too many failed authentication attempts; retry after "+strconv.Itoa(seconds)+" second(s).")
			return true
		}
	}
	return false
}

// failed spends one attempt of each budget.
func (g *tokenGuard) failed(c *gin.Context, clientID string) {
	now := time.Now()
	for _, key := range g.budgets(c, clientID, now) {
		g.failures.limiter(key, now).AllowN(now, 1)
	}
}

// succeeded remembers the address for the client.
func (g *tokenGuard) succeeded(c *gin.Context, clientID string) {
	now := time.Now()
	g.mu.Lock()
	defer g.mu.Unlock()
	if len(g.known) > 100_000 { // bounded: forget the stale ones
		for k, last := range g.known {
			if now.Sub(last) > knownFor {
				delete(g.known, k)
			}
		}
	}
	g.known[clientID+"|"+c.ClientIP()] = now
}

// check runs a secret check when one of the few slots is free within the
// wait; otherwise it answers 429 and returns false.
func (g *tokenGuard) check(c *gin.Context, run func(context.Context)) bool {
	timer := time.NewTimer(g.wait)
	defer timer.Stop()
	select {
	case g.checks <- struct{}{}:
	case <-timer.C:
		tooMany(c, 1, "The server is checking many credentials at once; retry after 1 second(s).")
		return false
	case <-c.Request.Context().Done():
		c.Abort()
		return false
	}
	defer func() { <-g.checks }()
	run(c.Request.Context())
	return true
}

func tooMany(c *gin.Context, seconds int, detail string) {
	c.Header("Retry-After", strconv.Itoa(seconds))
	problem.Write(c, problem.New(http.StatusTooManyRequests, detail))
}
