package cores

import "context"

// Kept is a core of the context kept from one unit of work to the next
// while there is more: taking and giving back one for each small unit
// would wake a waiting goroutine each time, for little work. The zero
// value holds none.
type Kept struct {
	pool *Pool
	held bool
}

// Hold takes a core when want and none is kept, and gives back the one
// kept when not (work that waits, e.g. on the network, holds none).
func (k *Kept) Hold(ctx context.Context, want bool) {
	switch {
	case want && !k.held:
		k.pool, k.held = Take(ctx), true
	case !want && k.held:
		k.Release()
	}
}

// Release gives back the core kept, if any.
func (k *Kept) Release() {
	if k.held {
		k.pool.Release()
		k.pool, k.held = nil, false
	}
}
