package jobs

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/earshot/earshot/internal/sidebyside"
	"github.com/earshot/earshot/warehouse/blob"
	"github.com/earshot/earshot/warehouse/catalog"
)

// recordedDeletions is a catalog's staged deletions, handed out up to a
// limit at a time and forgotten once deleted.
type recordedDeletions struct {
	mu      sync.Mutex
	pending []catalog.StagedDeletion
}

func newRecordedDeletions(n int) *recordedDeletions {
	r := &recordedDeletions{}
	for i := range n {
		r.pending = append(r.pending, catalog.StagedDeletion{InteractionID: fmt.Sprint("u", i), StagedKey: fmt.Sprint("staging/", i)})
	}
	return r
}

func (r *recordedDeletions) StagedDeletions(_ context.Context, limit int) ([]catalog.StagedDeletion, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.pending[:min(limit, len(r.pending))]), nil
}

func (r *recordedDeletions) StagedDeleted(_ context.Context, ids []string) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.pending = slices.DeleteFunc(r.pending, func(d catalog.StagedDeletion) bool { return slices.Contains(ids, d.InteractionID) })
	return nil
}

func (r *recordedDeletions) left() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.pending)
}

// deletingBucket answers deletes through answer, counting them and the
// most in flight at once.
type deletingBucket struct {
	answer            func(ctx context.Context, key string) error
	inFlight, most, n atomic.Int64
}

func (b *deletingBucket) Delete(ctx context.Context, key string) error {
	now := b.inFlight.Add(1)
	defer b.inFlight.Add(-1)
	for m := b.most.Load(); now > m && !b.most.CompareAndSwap(m, now); m = b.most.Load() {
	}
	b.n.Add(1)
	return b.answer(ctx, key)
}

// A run's staged originals are deleted side by side (a bucket that
// answers none until several are asked for at once), every record is
// cleared, an original already gone counts as deleted, and a failed
// delete leaves its batch's records for the next run.
func TestStagedOriginalsDeletedSideBySide(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute) // one at a time never gets an answer
	defer cancel()
	const together = 8
	gate := sidebyside.NewGate(0, together)
	bucket := &deletingBucket{answer: func(ctx context.Context, key string) error {
		if err := gate.Wait(ctx); err != nil {
			return err
		}
		if key == "staging/3" {
			return fmt.Errorf("%s: %w", key, blob.ErrNotFound)
		}
		return nil
	}}
	records := newRecordedDeletions(1200) // three batches of the catalog's
	n, err := (&StagedOriginals{Catalog: records, Bucket: bucket}).Delete(ctx)
	if err != nil || n != 1200 || records.left() != 0 || bucket.n.Load() != 1200 {
		t.Fatalf("deleted %d (%v), %d records left, %d deletes asked", n, err, records.left(), bucket.n.Load())
	}
	if most := bucket.most.Load(); most < together || most > deletesAtOnce {
		t.Fatalf("at most %d deletes at once; want %d to %d", most, together, deletesAtOnce)
	}

	refused := errors.New("permission denied")
	failing := &deletingBucket{answer: func(_ context.Context, key string) error {
		if key == "staging/7" {
			return refused
		}
		return nil
	}}
	records = newRecordedDeletions(20)
	n, err = (&StagedOriginals{Catalog: records, Bucket: failing}).Delete(ctx)
	if !errors.Is(err, refused) || n != 0 || records.left() != 20 {
		t.Fatalf("a refused delete: %d deleted, %v, %d records left; want its batch's records kept", n, err, records.left())
	}
}

// BenchmarkDeleteStagedOriginals deletes a batch's 16 originals through a
// bucket whose every delete is a round trip of a few milliseconds (an
// object store's), side by side, beside the baseline of one after another.
func BenchmarkDeleteStagedOriginals(b *testing.B) {
	const originals, roundTrip = 16, 5 * time.Millisecond
	bucket := &deletingBucket{answer: func(context.Context, string) error {
		time.Sleep(roundTrip) // the modelled network, not a wait for a condition
		return nil
	}}
	b.Run("side-by-side", func(b *testing.B) {
		for b.Loop() {
			if _, err := (&StagedOriginals{Catalog: newRecordedDeletions(originals), Bucket: bucket}).Delete(context.Background()); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("baseline-one-after-another", func(b *testing.B) {
		for b.Loop() {
			for _, d := range newRecordedDeletions(originals).pending {
				if err := bucket.Delete(context.Background(), d.StagedKey); err != nil {
					b.Fatal(err)
				}
			}
		}
	})
}
