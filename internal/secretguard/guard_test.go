package secretguard

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"
)

// try makes one attempt whose secret is right or wrong, and says what the
// guard answered: "ok", "wrong" or "refused".
func try(g *Guard, account, address string, right bool) string {
	ctx := context.Background()
	a, err := g.Admit(ctx, account, address)
	if err != nil {
		return "refused"
	}
	if err := a.Check(ctx, func(context.Context) {}); err != nil {
		a.Abandoned()
		return "busy"
	}
	if !right {
		a.Failed(ctx)
		return "wrong"
	}
	a.Succeeded()
	return "ok"
}

// The budgets: an address and an account may fail burst times; an
// account is not limited from an address it signed in from; an account
// that does not exist is limited the same way, so the answers tell
// nothing of which exist.
func TestBudgets(t *testing.T) {
	t.Parallel()
	g := NewWith(1.0/3600, 3, 2) // budgets that do not refill while the test runs
	g.Pause = 0
	if got := try(g, "user:acme/ann", "192.0.2.1", true); got != "ok" {
		t.Fatalf("ann from home: %s", got)
	}
	// A stranger spends ann's account budget from its address.
	for i := range 3 {
		if got := try(g, "user:acme/ann", "198.51.100.7", false); got != "wrong" {
			t.Fatalf("stranger's attempt %d: %s", i+1, got)
		}
	}
	for _, tc := range []struct {
		name, account, address string
		right                  bool
		want                   string
	}{
		{"the stranger's address is spent, even with the right password", "user:acme/ann", "198.51.100.7", true, "refused"},
		{"ann's account from a new address", "user:acme/ann", "203.0.113.9", true, "refused"},
		{"ann from the address she signed in from", "user:acme/ann", "192.0.2.1", true, "ok"},
		{"another account from a new address", "user:acme/raj", "203.0.113.9", false, "wrong"},
	} {
		if got := try(g, tc.account, tc.address, tc.right); got != tc.want {
			t.Errorf("%s: %s, want %s", tc.name, got, tc.want)
		}
	}
	// A stranger at ann's own address (a shared NAT) spends that
	// address's budget on other accounts: ann there is not refused.
	for i := range 3 {
		if got := try(g, fmt.Sprintf("user:acme/guess%d", i), "192.0.2.1", false); got != "wrong" {
			t.Fatalf("the stranger at ann's address, attempt %d: %s", i+1, got)
		}
	}
	if got := try(g, "user:acme/other", "192.0.2.1", false); got != "refused" {
		t.Errorf("the shared address past its budget: %s", got)
	}
	if got := try(g, "user:acme/ann", "192.0.2.1", true); got != "ok" {
		t.Errorf("ann at her shared address: %s", got)
	}
	// An unknown account, from fresh addresses, is refused after as many
	// failures as a known one.
	for i, want := range []string{"wrong", "wrong", "wrong", "refused"} {
		address := []string{"192.0.2.10", "192.0.2.11", "192.0.2.12", "192.0.2.13"}[i]
		if got := try(g, "user:acme/nobody", address, false); got != want {
			t.Errorf("unknown account, attempt %d: %s, want %s", i+1, got, want)
		}
	}
	var refused *Refused
	if _, err := g.Admit(context.Background(), "user:acme/nobody", "192.0.2.99"); !errors.As(err, &refused) || refused.RetryAfter < 1 || refused.Busy {
		t.Errorf("a refusal: %v", err)
	}
}

// Secrets are checked a few at a time, in the order the attempts came; an
// attempt that waits longer than Wait is refused as busy, without its
// check.
func TestChecksAreBoundedAndFair(t *testing.T) {
	t.Parallel()
	g := NewWith(100, 100, 1)
	ctx := context.Background()
	release := holdCheck(g)

	// Waiters queue behind the held check and run in their order.
	var order []int
	var mu sync.Mutex
	var wg sync.WaitGroup
	for i := range 5 {
		a, _ := g.Admit(ctx, "client:a", "192.0.2.1")
		wg.Go(func() {
			a.Check(ctx, func(context.Context) { mu.Lock(); order = append(order, i); mu.Unlock() })
			a.Abandoned()
		})
		waitQueued(t, g, i+1)
	}
	release()
	wg.Wait()
	for i, n := range order {
		if n != i {
			t.Fatalf("checks ran in the order %v, want the order they came", order)
		}
	}

	// All checks held: the next attempt is refused as busy after Wait.
	g.Wait = 20 * time.Millisecond
	release = holdCheck(g)
	a, _ := g.Admit(ctx, "client:b", "192.0.2.2")
	ran := false
	var refused *Refused
	if err := a.Check(ctx, func(context.Context) { ran = true }); !errors.As(err, &refused) || !refused.Busy || ran {
		t.Errorf("with every check held: %v (ran %v)", err, ran)
	}
	release()
}

// holdCheck takes a check of g until release is called.
func holdCheck(g *Guard) (release func()) {
	holding, done := make(chan struct{}), make(chan struct{})
	a, _ := g.Admit(context.Background(), "client:holder", "198.18.255.1")
	go a.Check(context.Background(), func(context.Context) { close(holding); <-done })
	<-holding
	return func() { close(done) }
}

// waitQueued waits until n attempts wait for a check.
func waitQueued(t *testing.T, g *Guard, n int) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(time.Millisecond) {
		if _, waiting := g.checks.state(); waiting >= n {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("fewer than %d attempts wait", n)
		}
	}
}

// A failed and a refused attempt are answered after the pause.
func TestFailuresPause(t *testing.T) {
	t.Parallel()
	g := NewWith(1.0/3600, 1, 1)
	g.Pause = 100 * time.Millisecond
	for i, want := range []string{"wrong", "refused"} {
		start := time.Now()
		if got := try(g, "client:a", "192.0.2.1", false); got != want || time.Since(start) < g.Pause {
			t.Errorf("attempt %d: %s after %v, want %s after the pause", i+1, got, time.Since(start), want)
		}
	}
}

// A known account at its address is checked before the strangers queued
// ahead of it: a flood of strangers waits behind the regular clients.
func TestKnownAccountsGoFirst(t *testing.T) {
	t.Parallel()
	g := NewWith(100, 100, 1)
	ctx := context.Background()
	if got := try(g, "client:regular", "192.0.2.50", true); got != "ok" {
		t.Fatalf("the regular client's first token: %s", got)
	}
	release := holdCheck(g)
	var order []string
	var mu sync.Mutex
	var wg sync.WaitGroup
	queue := func(account, address string, n int) {
		a, _ := g.Admit(ctx, account, address)
		wg.Go(func() {
			a.Check(ctx, func(context.Context) { mu.Lock(); order = append(order, account); mu.Unlock() })
			a.Abandoned()
		})
		waitQueued(t, g, n)
	}
	queue("client:stranger-1", "198.18.0.2", 1)
	queue("client:stranger-2", "198.18.0.3", 2)
	queue("client:regular", "192.0.2.50", 3)
	release()
	wg.Wait()
	if len(order) != 3 || order[0] != "client:regular" || order[1] != "client:stranger-1" {
		t.Fatalf("checked in the order %v, want the regular client first, then the strangers as they came", order)
	}
}
