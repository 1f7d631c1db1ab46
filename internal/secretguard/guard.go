// Package secretguard guards every password and secret check — the token
// endpoint's client secrets, the console's passwords. A check (bcrypt)
// costs a core tens of milliseconds, so wrong secrets are the cheapest way
// to load the server and the only way to guess one. One Guard serves every
// door:
//   - each address may fail a few times, then waits for its budget to
//     refill (refused with the seconds to wait, no check made);
//   - so may each account (a client id, an organization's user name):
//     guessing one account's secret from many addresses stops. An account
//     name that does not exist has a budget all the same, so the answers
//     never tell whether it exists;
//   - an account at an address it signed in from before draws on neither
//     budget but on its own for that address: strangers' failures, for
//     that account elsewhere or for others at that address (a shared
//     NAT), do not lock it out;
//   - secrets are checked a few at a time, in the order the requests came
//     (a fair queue), an account's from an address it signed in from
//     before a stranger's, so that a flood leaves cores and turns to the
//     regular clients;
//   - a failed or refused attempt is answered after a pause: a flooding
//     connection then costs a waiting goroutine, not a core.
package secretguard

import (
	"context"
	"fmt"
	"math"
	"runtime"
	"sync"
	"time"

	"github.com/earshot/earshot/internal/ratelimit"
)

// The defaults.
const (
	failuresPerMinute = 10 // refill of each budget
	FailureBurst      = 10 // a budget when full
	// checkWait is how long an attempt waits for a free check before it
	// is refused as busy.
	checkWait = 2 * time.Second
	// knownFor is how long an address stays known for an account after it
	// signed in from there.
	knownFor = 24 * time.Hour
	// failurePause is how long a failed or refused attempt waits for its
	// answer.
	failurePause = time.Second
	// maxKnown bounds the remembered (account, address) pairs.
	maxKnown = 100_000
)

// Guard holds the failure budgets and the checks in progress.
type Guard struct {
	failures *ratelimit.Keyed // keyed "addr:…" and "account:…"
	checks   *fifo
	// Wait is how long an attempt waits for a free check; Pause how long a
	// failed or refused attempt waits for its answer.
	Wait, Pause time.Duration

	mu       sync.Mutex
	known    map[string]time.Time // "account|address" → last success
	checking map[string]int       // budget → attempts being checked
}

// New makes a guard with the default budgets, checking at most half the
// cores' worth of secrets at once.
func New() *Guard {
	return NewWith(failuresPerMinute/60.0, FailureBurst, max(1, runtime.GOMAXPROCS(0)/2))
}

// NewWith makes a guard whose budgets refill perSec failures a second up
// to burst, checking at most checks secrets at once.
func NewWith(perSec float64, burst, checks int) *Guard {
	return &Guard{failures: ratelimit.NewKeyed(perSec, burst), checks: newFIFO(checks),
		Wait: checkWait, Pause: failurePause, known: map[string]time.Time{}, checking: map[string]int{}}
}

// Refused is an attempt the guard turned away: over a budget, or no check
// free in time (Busy). RetryAfter is the seconds to wait.
type Refused struct {
	RetryAfter int
	Busy       bool
}

func (r *Refused) Error() string {
	if r.Busy {
		return "the server is checking many credentials at once"
	}
	return fmt.Sprintf("too many failed attempts; retry after %d second(s)", r.RetryAfter)
}

// Attempt is a secret check admitted against its budgets; it ends with
// Failed, Succeeded or Abandoned.
type Attempt struct {
	guard            *Guard
	account, address string
	keys             []string
	known            bool // the account signed in from the address before
	ended            bool
}

// Admit lets an attempt of account from address go on when every budget
// it draws on has an attempt left, counting the attempts still being
// checked (so that concurrent attempts cannot all pass an almost spent
// budget); otherwise it pauses and returns a *Refused.
func (g *Guard) Admit(ctx context.Context, account, address string) (*Attempt, error) {
	now := time.Now()
	a := &Attempt{guard: g, account: account, address: address}
	g.mu.Lock()
	if last, ok := g.known[account+"|"+address]; ok && now.Sub(last) <= knownFor {
		a.known, a.keys = true, []string{"pair:" + account + "|" + address}
	} else {
		a.keys = []string{"addr:" + address, "account:" + account}
	}
	for _, key := range a.keys {
		lim := g.failures.Limiter(key, now)
		if left := lim.TokensAt(now) - float64(g.checking[key]); left < 1 {
			g.mu.Unlock()
			g.pause(ctx)
			return nil, &Refused{RetryAfter: max(int(math.Ceil((1-left)/float64(lim.Limit()))), 1)}
		}
	}
	for _, key := range a.keys {
		g.checking[key]++
	}
	g.mu.Unlock()
	return a, nil
}

// Check runs the secret check when a check is free within the guard's
// wait, in the order the attempts came, a known account's at its address
// before strangers'; otherwise it returns a busy *Refused (or the
// context's error) without running it.
func (a *Attempt) Check(ctx context.Context, run func(context.Context)) error {
	g := a.guard
	if err := g.checks.acquire(ctx, g.Wait, a.known); err != nil {
		return err
	}
	defer g.checks.release()
	run(ctx)
	return nil
}

// Failed ends the attempt as a wrong secret: it spends an attempt of each
// budget, and pauses before the answer.
func (a *Attempt) Failed(ctx context.Context) {
	a.end(true)
	a.guard.pause(ctx)
}

// Succeeded ends the attempt and remembers the address for the account.
func (a *Attempt) Succeeded() {
	a.end(false)
	g := a.guard
	now := time.Now()
	g.mu.Lock()
	defer g.mu.Unlock()
	if len(g.known) >= maxKnown { // bounded: forget the stale ones
		for k, last := range g.known {
			if now.Sub(last) > knownFor {
				delete(g.known, k)
			}
		}
	}
	if len(g.known) < maxKnown {
		g.known[a.account+"|"+a.address] = now
	}
}

// Abandoned ends an attempt whose check did not run or could not tell
// (busy, an error): nothing is spent.
func (a *Attempt) Abandoned() { a.end(false) }

func (a *Attempt) end(failed bool) {
	if a.ended {
		return
	}
	a.ended = true
	g := a.guard
	now := time.Now()
	g.mu.Lock()
	defer g.mu.Unlock()
	for _, key := range a.keys {
		if g.checking[key]--; g.checking[key] == 0 {
			delete(g.checking, key)
		}
		if failed {
			g.failures.Limiter(key, now).AllowN(now, 1)
		}
	}
}

// pause waits the failure pause, or until the caller goes away.
func (g *Guard) pause(ctx context.Context) {
	if g.Pause <= 0 {
		return
	}
	t := time.NewTimer(g.Pause)
	defer t.Stop()
	select {
	case <-t.C:
	case <-ctx.Done():
	}
}
