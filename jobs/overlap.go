package jobs

import (
	"context"
	"fmt"

	"github.com/earshot/earshot/pipeline"
	"github.com/earshot/earshot/warehouse/catalog"
)

// drain processes one queue's batches until it is empty. Batches overlap:
// while one is committed (its lake files written, its catalog transaction)
// the next is claimed and processed, so neither stage waits for the other.
// Commits stay in claim order, one at a time, and at most two batches are
// held in memory.
func (j *Ingest) drain(ctx context.Context, run catalog.JobRun, q Queue, counts *tally) error {
	c := j.startCommitter(ctx, run.ID, counts)
	// The first batch is one upload a worker: how many conversations an
	// upload holds is known once it is processed.
	limit := min(max(j.Workers, 1), q.BatchSize)
	for {
		if err := ctx.Err(); err != nil {
			return c.finish(err)
		}
		// The claim runs to its end even when the job is stopped meanwhile
		// (the batch being committed may stop it): a claim cut off after
		// its transaction committed would hold uploads nothing gives back.
		claimed, err := j.Uploads.ClaimPending(context.WithoutCancel(ctx), j.Owner, q.MediaTypes, limit, j.Lease)
		if err != nil {
			return c.finish(fmt.Errorf("claim: %w", err))
		}
		if len(claimed) == 0 {
			return c.finish(nil)
		}
		b := processed{claimed: claimed, stopRenewing: j.renewWhileProcessing(ctx, claimed)}
		if err := ctx.Err(); err != nil {
			j.giveBack(ctx, b)
			return c.finish(err)
		}
		var convs int
		b.results, convs = j.process(ctx, run.ID, claimed, counts)
		if err := ctx.Err(); err != nil {
			j.giveBack(ctx, b)
			return c.finish(err)
		}
		if !c.hand(b) {
			j.giveBack(ctx, b)
			return c.finish(nil)
		}
		limit = nextClaim(q.BatchSize, len(claimed), convs)
	}
}

// processed is a batch whose uploads are processed and wait for their
// commit, their leases renewed until then.
type processed struct {
	claimed      []catalog.Interaction
	results      []pipeline.Result
	stopRenewing func()
}

// giveBack ends a batch that will not commit: its renewals stop and its
// claims are released.
func (j *Ingest) giveBack(ctx context.Context, b processed) {
	b.stopRenewing()
	j.release(ctx, b.claimed)
}

// committer commits processed batches in the order they are handed to it.
type committer struct {
	queue   chan processed
	stopped chan struct{} // closed at the first failure: nothing more is taken
	done    chan error    // the first failure (or nil) once every batch is dealt with
}

// startCommitter starts committing the batches handed to it; after a
// failure, each batch still handed is given back uncommitted.
func (j *Ingest) startCommitter(ctx context.Context, runID string, counts *tally) *committer {
	c := &committer{queue: make(chan processed), stopped: make(chan struct{}), done: make(chan error, 1)}
	go func() {
		var failure error
		for b := range c.queue {
			if failure != nil {
				j.giveBack(ctx, b)
				continue
			}
			err := j.commitBatch(ctx, runID, b.results, counts)
			b.stopRenewing()
			if err == nil {
				err = j.deleteOriginals(ctx, counts)
			} else {
				j.release(ctx, b.claimed)
			}
			if err != nil {
				failure = err
				close(c.stopped)
			}
		}
		c.done <- failure
	}()
	return c
}

// hand queues a processed batch for its commit, waiting while the one
// before it is committed; false when the committer has failed and will
// not take it.
func (c *committer) hand(b processed) bool {
	select {
	case c.queue <- b:
		return true
	case <-c.stopped:
		return false
	}
}

// finish waits for the batches handed over to be committed; the
// committer's failure comes before err (the drain's own reason to stop).
func (c *committer) finish(err error) error {
	close(c.queue)
	if failure := <-c.done; failure != nil {
		return failure
	}
	return err
}

// commitBatch commits a processed batch; a stop (ctx) before the commit
// commits nothing.
func (j *Ingest) commitBatch(ctx context.Context, runID string, results []pipeline.Result, counts *tally) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if err := j.refuseTakenNames(ctx, results); err != nil {
		return err
	}
	return j.commit(ctx, runID, results, counts)
}
