package secretguard

import (
	"context"
	"sync"
	"time"
)

// fifo is a semaphore whose waiters get the slots in the order they came,
// the known ones (an account at an address it signed in from) before the
// others: a flood of strangers queues behind itself, not in front of the
// regular clients.
type fifo struct {
	mu      sync.Mutex
	free    int
	waiters [2][]chan struct{} // known, then strangers; closed when handed a slot
}

func newFIFO(slots int) *fifo { return &fifo{free: max(slots, 1)} }

// acquire takes a slot, waiting at most wait behind the earlier waiters of
// its kind (and, for a stranger, every known one): a busy *Refused after
// it, the context's error if it ends first.
func (f *fifo) acquire(ctx context.Context, wait time.Duration, known bool) error {
	lane := 1
	if known {
		lane = 0
	}
	f.mu.Lock()
	if f.free > 0 && len(f.waiters[0]) == 0 && (known || len(f.waiters[1]) == 0) {
		f.free--
		f.mu.Unlock()
		return nil
	}
	turn := make(chan struct{})
	f.waiters[lane] = append(f.waiters[lane], turn)
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
	for i, w := range f.waiters[lane] {
		if w == turn {
			f.waiters[lane] = append(f.waiters[lane][:i], f.waiters[lane][i+1:]...)
			return err
		}
	}
	// Handed a slot as the wait ended: give it on.
	f.releaseLocked()
	return err
}

// release gives the slot to the first known waiter, else the first
// stranger, or frees it.
func (f *fifo) release() {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.releaseLocked()
}

func (f *fifo) releaseLocked() {
	for lane := range f.waiters {
		if len(f.waiters[lane]) > 0 {
			close(f.waiters[lane][0])
			f.waiters[lane] = f.waiters[lane][1:]
			return
		}
	}
	f.free++
}

// state is the free slots and the waiters.
func (f *fifo) state() (free, waiting int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.free, len(f.waiters[0]) + len(f.waiters[1])
}
