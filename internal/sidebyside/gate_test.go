package sidebyside

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"
)

// The free calls pass at once; the next wait until together of them have
// arrived, then all pass; a call alone past the free ones waits until its
// context ends.
func TestGate(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	g := NewGate(2, 3)
	for range 2 {
		if err := g.Wait(ctx); err != nil {
			t.Fatal(err)
		}
	}
	var wg sync.WaitGroup
	errs := make([]error, 3)
	for i := range 3 {
		wg.Go(func() { errs[i] = g.Wait(ctx) })
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		t.Fatal(err)
	}
	if err := g.Wait(ctx); err != nil {
		t.Fatalf("a call after the gate opened: %v", err)
	}

	alone := NewGate(0, 2)
	short, stop := context.WithCancel(context.Background())
	stop()
	if err := alone.Wait(short); !errors.Is(err, context.Canceled) {
		t.Fatalf("a call alone at a closed gate: %v", err)
	}
}
