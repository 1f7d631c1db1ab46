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
//     addresses still leaves cores to everyone else;
//   - a failed or refused attempt is answered after a pause: a flooding
//     connection then costs a waiting goroutine, not a core.
const (
	failuresPerMinute = 10 // refill of each budget
	failureBurst      = 10 // a budget when full
	// checkWait is how long a request waits for a free secret check before
	// it is told to retry.
	checkWait = 2 * time.Second
	// knownFor is how long an address stays known for a client after it
	// authenticated from there.
	knownFor = 24 * time.Hour
	// failurePause is how long a failed or refused attempt waits for its
	// answer.
	failurePause = time.Second
)

// tokenGuard holds the failure budgets and the secret checks in progress.
type tokenGuard struct {
	failures *rateLimiter // keyed "ip:…" and "client:…"
	checks   chan struct{}
	wait     time.Duration
	pause    time.Duration

	mu       sync.Mutex
	known    map[string]time.Time // "client|ip" → last success
	checking map[string]int       // budget → attempts being checked
}

func newTokenGuard() *tokenGuard {
	return &tokenGuard{
		failures: newRateLimiter(failuresPerMinute/60.0, failureBurst, nil),
		checks:   make(chan struct{}, max(1, runtime.GOMAXPROCS(0)/2)),
		wait:     checkWait,
		pause:    failurePause,
		known:    map[string]time.Time{},
		checking: map[string]int{},
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

// admit lets an attempt check its secret when every budget it draws on
// has an attempt left, counting the attempts still being checked (so that
// concurrent attempts cannot all pass an almost spent budget). Otherwise
// it answers 429 and returns nil.
func (g *tokenGuard) admit(c *gin.Context, clientID string) *attempt {
	now := time.Now()
	a := &attempt{guard: g, c: c, clientID: clientID, keys: g.budgets(c, clientID, now)}
	g.mu.Lock()
	for _, key := range a.keys {
		lim := g.failures.limiter(key, now)
		if left := lim.TokensAt(now) - float64(g.checking[key]); left < 1 {
			g.mu.Unlock()
			seconds := max(int(math.Ceil((1-left)/float64(lim.Limit()))), 1)
			g.pauseFor(c)
			problem.Write(c, tooMany(seconds, "Too many failed authentication attempts; retry after "+strconv.Itoa(seconds)+" second(s)."))
			return nil
		}
	}
	for _, key := range a.keys {
		g.checking[key]++
	}
	g.mu.Unlock()
	return a
}

// An attempt is a secret check admitted against its budgets.
type attempt struct {
	guard    *tokenGuard
	c        *gin.Context
	clientID string
	keys     []string
}

// done ends the check; a failed one spends an attempt of each budget.
func (a *attempt) done(failed bool) {
	now := time.Now()
	g := a.guard
	g.mu.Lock()
	defer g.mu.Unlock()
	for _, key := range a.keys {
		if g.checking[key]--; g.checking[key] == 0 {
			delete(g.checking, key)
		}
		if failed {
			g.failures.limiter(key, now).AllowN(now, 1)
		}
	}
}

// failed spends the attempt, and pauses before the answer.
func (a *attempt) failed() {
	a.done(true)
	a.guard.pauseFor(a.c)
}

// succeeded ends the attempt and remembers the address for the client.
func (a *attempt) succeeded() {
	a.done(false)
	a.guard.remember(a.c, a.clientID)
}

// pauseFor waits the failure pause, or until the caller goes away.
func (g *tokenGuard) pauseFor(c *gin.Context) {
	if g.pause <= 0 {
		return
	}
	t := time.NewTimer(g.pause)
	defer t.Stop()
	select {
	case <-t.C:
	case <-c.Request.Context().Done():
	}
}

// remember keeps the address as known for the client.
func (g *tokenGuard) remember(c *gin.Context, clientID string) {
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
		problem.Write(c, tooMany(1, "The server is checking many credentials at once; retry after 1 second(s)."))
		return false
	case <-c.Request.Context().Done():
		c.Abort()
		return false
	}
	defer func() { <-g.checks }()
	run(c.Request.Context())
	return true
}

// tooMany is the 429 of a refused request, with the seconds to wait.
func tooMany(seconds int, detail string) *problem.Problem {
	p := problem.New(http.StatusTooManyRequests, detail)
	p.Header = http.Header{"Retry-After": {strconv.Itoa(seconds)}}
	return p
}
