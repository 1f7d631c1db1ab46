package pipeline

import (
	"errors"
	"sync"
)

// ErrNoSlot: the organization, or the server, is already evaluating as
// many stored conversations as it may at once.
var ErrNoSlot = errors.New("no evaluation slot free")

// Slots bounds the evaluations of classifiers over stored conversations (a
// classifier's dry run, a reclassification): each reads and classifies
// thousands of conversations, and unbounded they would starve everyone
// else of cores and memory. At most PerOrg run at once for one
// organization, and Total overall.
type Slots struct {
	perOrg, total int

	mu    sync.Mutex
	byOrg map[string]int
	all   int
}

// NewSlots makes the bounds.
func NewSlots(perOrg, total int) *Slots {
	return &Slots{perOrg: max(perOrg, 1), total: max(total, 1), byOrg: map[string]int{}}
}

// Take takes a slot for the organization, to give back with release once
// its evaluation ends, or fails with ErrNoSlot.
func (s *Slots) Take(org string) (release func(), err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.byOrg[org] >= s.perOrg || s.all >= s.total {
		return nil, ErrNoSlot
	}
	s.byOrg[org]++
	s.all++
	var once sync.Once
	return func() {
		once.Do(func() {
			s.mu.Lock()
			defer s.mu.Unlock()
			if s.byOrg[org]--; s.byOrg[org] == 0 {
				delete(s.byOrg, org)
			}
			s.all--
		})
	}, nil
}
