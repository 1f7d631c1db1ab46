package cores

import (
	"context"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
)

// At most the pool's cores are held at once, and every taker gets one.
func TestPoolBoundsConcurrentWork(t *testing.T) {
	t.Parallel()
	for _, n := range []int{1, 2, 3} {
		ctx := With(context.Background(), New(n))
		var busy, most, done atomic.Int64
		var wg sync.WaitGroup
		for range 50 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				core := Take(ctx)
				now := busy.Add(1)
				for {
					m := most.Load()
					if now <= m || most.CompareAndSwap(m, now) {
						break
					}
				}
				busy.Add(-1)
				done.Add(1)
				core.Release()
			}()
		}
		wg.Wait()
		if most.Load() > int64(n) || done.Load() != 50 {
			t.Errorf("pool of %d: %d held at once, %d of 50 done", n, most.Load(), done.Load())
		}
	}
}

// A pool whose cores are all taken makes the next taker wait until one is
// given back.
func TestTakeWaitsForAFreeCore(t *testing.T) {
	t.Parallel()
	p := New(2)
	ctx := With(context.Background(), p)
	first, second := Take(ctx), Take(ctx)
	select {
	case p.slots <- struct{}{}:
		t.Fatal("a third core was free in a pool of two")
	default:
	}
	got := make(chan struct{})
	go func() {
		core := Take(ctx)
		close(got)
		core.Release()
	}()
	first.Release()
	<-got // would hang (and the test time out) if the core given back were not taken
	second.Release()
	if len(p.slots) != 0 {
		t.Errorf("%d cores still held after every release", len(p.slots))
	}
}

// Without a pool nothing waits.
func TestNoPoolIsUnbounded(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	for range 100 {
		if core := Take(ctx); core != nil {
			t.Fatal("a core was taken from a context without a pool")
		}
	}
}

// A kept core serves one unit of work after another with a single take,
// is given back for work that waits and when done. With a pool of one
// core, a second take or a core not given back would hang the test (and
// time it out).
func TestKeptTakesOneCoreForConsecutiveWork(t *testing.T) {
	t.Parallel()
	p := New(1)
	ctx := With(context.Background(), p)
	var k Kept
	k.Hold(ctx, true)
	k.Hold(ctx, true) // the next unit: the same core
	if len(p.slots) != 1 {
		t.Fatalf("%d cores held for consecutive work, want 1", len(p.slots))
	}
	k.Hold(ctx, false) // work that waits holds none
	if len(p.slots) != 0 {
		t.Fatal("a core kept for work that waits")
	}
	k.Hold(ctx, true)
	k.Release()
	k.Release() // twice gives back nothing more
	if len(p.slots) != 0 {
		t.Fatal("the kept core was not given back")
	}
	var none Kept
	none.Hold(context.Background(), true) // no pool: nothing to take or give back
	none.Release()
}

// A context's size is its pool's, or the process's cores without one.
func TestSize(t *testing.T) {
	t.Parallel()
	if got := Size(With(context.Background(), New(3))); got != 3 {
		t.Errorf("a pool of 3: size %d", got)
	}
	if got := Size(context.Background()); got != runtime.GOMAXPROCS(0) {
		t.Errorf("no pool: size %d, want GOMAXPROCS %d", got, runtime.GOMAXPROCS(0))
	}
}
