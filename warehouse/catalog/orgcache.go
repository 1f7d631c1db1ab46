package catalog

import "sync"

// orgCache keeps what was read of each organization (its hierarchy, its
// classifiers, its manifest) in memory between changes: the query API
// reads them on every request, and they change seldom. A change made in
// this process invalidates the organization after its transaction; on
// SQLite every change goes through the serving process (other commands use
// its admin socket), on PostgreSQL other processes' changes arrive as
// notifications (changes.go). A read that overlapped a change is returned
// but not kept: the generation it started under moved.
type orgCache[T any] struct {
	mu     sync.Mutex
	values map[string]T
	gen    map[string]uint64
	epoch  uint64 // moves on invalidateAll
}

// load returns the organization's value, reading it when it is not kept.
func (oc *orgCache[T]) load(orgID string, read func() (T, error)) (T, error) {
	oc.mu.Lock()
	v, ok := oc.values[orgID]
	gen, epoch := oc.gen[orgID], oc.epoch
	oc.mu.Unlock()
	if ok {
		return v, nil
	}
	v, err := read()
	if err != nil {
		return v, err
	}
	oc.mu.Lock()
	defer oc.mu.Unlock()
	if oc.gen[orgID] == gen && oc.epoch == epoch {
		oc.made()
		oc.values[orgID] = v
	}
	return v, nil
}

// invalidate drops what is kept of organizations after a change.
func (oc *orgCache[T]) invalidate(orgIDs ...string) {
	oc.mu.Lock()
	defer oc.mu.Unlock()
	oc.made()
	for _, id := range orgIDs {
		oc.gen[id]++
		delete(oc.values, id)
	}
}

// change replaces the organization's kept value, if one is kept, by
// fn's change of it (fn must leave the value it is given as readers of it
// see it, or change it safely beside them), and keeps no read that the
// change overlaps: it may have missed the change.
func (oc *orgCache[T]) change(orgID string, fn func(T) T) {
	oc.mu.Lock()
	defer oc.mu.Unlock()
	oc.made()
	oc.gen[orgID]++
	if v, ok := oc.values[orgID]; ok {
		oc.values[orgID] = fn(v)
	}
}

// invalidateAll drops everything kept, after a change that may touch any
// organization.
func (oc *orgCache[T]) invalidateAll() {
	oc.mu.Lock()
	defer oc.mu.Unlock()
	oc.epoch++
	clear(oc.values)
}

// made makes the maps of a zero orgCache (mu held).
func (oc *orgCache[T]) made() {
	if oc.values == nil {
		oc.values, oc.gen = map[string]T{}, map[string]uint64{}
	}
}
