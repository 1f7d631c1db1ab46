package secretguard

import (
	"context"
	"sync"
	"time"
)

// fifo is a semaphore whose waiters get the slots in the order they came.
type fifo struct {
	mu      sync.Mutex
	free    int
	waiters []chan struct{} // closed when handed a slot
}

func newFIFO(slots int) *fifo { return &fifo{free: max(slots, 1)} }

// acquire takes a slot, waiting at most wait behind the earlier waiters:
// a busy *Refused after it, the context's error if it ends first.
func (f *fifo) acquire(ctx context.Context, wait time.Duration) error {
	f.mu.Lock()
	if f.free > 0 && len(f.waiters) == 0 {
		f.free--
		f.mu.Unlock()
		return nil
	}
	turn := make(chan struct{})
	f.waiters = append(f.waiters, turn)
	f.mu.Unlock()
	timer := time.NewTimer(wait)
	defer timer.Stop()
	var err error
	select {
	case <-turn:
		return nil
	case <-timer.C:
		err = &Refused{RetryAfter: 1, Busy: true}
	case <-ctx.Done():
		err = ctx.Err()
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	for i, w := range f.waiters {
		if w == turn {
			f.waiters = append(f.waiters[:i], f.waiters[i+1:]...)
			return err
		}
	}
	// Handed a slot as the wait ended: give it on.
	f.releaseLocked()
	return err
}

// release gives the slot to the first waiter, or frees it.
func (f *fifo) release() {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.releaseLocked()
}

func (f *fifo) releaseLocked() {
	if len(f.waiters) > 0 {
		close(f.waiters[0])
		f.waiters = f.waiters[1:]
		return
	}
	f.free++
}

// state is the free slots and the waiters.
func (f *fifo) state() (free, waiting int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.free, len(f.waiters)
}
