package jobs

import (
	"context"
	"errors"
	"syscall"
	"testing"
	"time"

	"github.com/earshot/earshot/warehouse/catalog"
	"github.com/earshot/earshot/warehouse/lake"
)

// stoppingLake is a lake writer that fails its writes as a full disk
// does, or stops the run that writes (a graceful shutdown).
type stoppingLake struct {
	stop func() // nil: fail with ENOSPC
}

func (l stoppingLake) Write(ctx context.Context, _ string, _ lake.Batch) ([]catalog.LakeFile, error) {
	if l.stop == nil {
		return nil, syscall.ENOSPC
	}
	l.stop()
	return nil, ctx.Err()
}

// A batch that fails or is stopped gives its claims back at once: with an
// hour's lease, another worker claims every upload right after the run.
func TestBatchThatDoesNotCommitReleasesItsClaims(t *testing.T) {
	t.Parallel()
	for _, stopped := range []bool{false, true} {
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		w := stoppingLake{}
		if stopped {
			w.stop = cancel
		}
		e := newEnv(t, func(i *Ingest) { i.Lake, i.Lease = w, time.Hour })
		// Batches of two: the second is being processed (and the third
		// claimed) while the first fails to commit, and they are given
		// back too.
		ids := map[string]bool{}
		for _, name := range []string{"a.json", "b.json", "c.json", "d.json", "e.json", "f.json", "g.json", "h.json"} {
			ids[e.stage(t, name, []byte(ccaiChat))] = true
		}
		_, err := e.runner.Run(ctx, "ingest")
		if stopped && !errors.Is(err, context.Canceled) || !stopped && !errors.Is(err, syscall.ENOSPC) {
			t.Fatalf("stopped=%v: the run's error %v", stopped, err)
		}
		claimed, err := e.cat.Interactions.ClaimPending(context.Background(), "another-worker", []string{catalog.MediaChat}, 10, time.Minute)
		if err != nil {
			t.Fatal(err)
		}
		for _, it := range claimed {
			delete(ids, it.ID)
		}
		if len(ids) > 0 {
			t.Errorf("stopped=%v: %d uploads still held by the run that did not commit", stopped, len(ids))
		}
	}
}
