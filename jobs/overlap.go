package jobs

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/earshot/earshot/pipeline"
	"github.com/earshot/earshot/warehouse/catalog"
)

// drain processes one queue's batches until it is empty. Batches overlap:
// while one is committed (its catalog transaction) the one before it has
// its dashboard figures kept, the next one's lake files are written, the
// one after it is processed and the one after that claimed, so no stage
// waits for another. Commits stay in claim order, one at a time, and at
// most four batches' rows are held in memory (the one being claimed holds
// its uploads' records alone).
func (j *Ingest) drain(ctx context.Context, run catalog.JobRun, q Queue, counts *tally) error {
	c := j.startCommitter(ctx, run.ID, counts)
	// The first batch is one upload a worker: how many conversations an
	// upload holds is known once it is processed. The second is claimed
	// then, and each after it while the one before it is processed (a
	// claim waits its turn for the catalog behind the commits).
	limit := min(max(j.Workers, 1), q.BatchSize)
	next := j.claimAhead(ctx, q, limit)
	for first := true; ; first = false {
		waited := time.Now()
		b, err := next.wait()
		if err != nil {
			return c.finish(err)
		}
		if len(b.claimed) == 0 {
			return c.finish(nil)
		}
		counts.busy("claim_wait", time.Since(waited)) // a run that finds nothing counts nothing
		if err := ctx.Err(); err != nil {
			j.giveBack(ctx, b)
			return c.finish(err)
		}
		next = nil
		if !first {
			next = j.claimAhead(ctx, q, limit)
		}
		var convs int
		started := time.Now()
		b.results, convs = j.process(ctx, run.ID, b.claimed, counts)
		counts.busy("processing", time.Since(started))
		if err := ctx.Err(); err != nil {
			j.giveBack(ctx, b)
			j.giveBackClaim(ctx, next)
			return c.finish(err)
		}
		if !c.hand(b) {
			j.giveBack(ctx, b)
			j.giveBackClaim(ctx, next)
			return c.finish(nil)
		}
		limit = nextClaim(q.BatchSize, j.Workers, len(b.claimed), convs)
		if first {
			next = j.claimAhead(ctx, q, limit)
		}
	}
}

// processed is a batch whose uploads are processed and wait for their
// commit, their leases renewed until then.
type processed struct {
	claimed      []catalog.Interaction
	results      []pipeline.Result
	stopRenewing func()
}

// claim is a batch being claimed, while the batch before it is processed.
type claim struct {
	done  chan struct{}
	batch processed // its claimed uploads, renewed from their claim on
	err   error
}

// claimAhead claims the next batch of up to limit uploads in the
// background. The claim runs to its end even when the job is stopped
// meanwhile (the batch being committed may stop it): a claim cut off after
// its transaction committed would hold uploads nothing gives back.
func (j *Ingest) claimAhead(ctx context.Context, q Queue, limit int) *claim {
	cl := &claim{done: make(chan struct{})}
	go func() {
		defer close(cl.done)
		claimed, err := j.Uploads.ClaimPending(context.WithoutCancel(ctx), j.Owner, q.MediaTypes, limit, j.Lease)
		if err != nil {
			cl.err = fmt.Errorf("claim: %w", err)
			return
		}
		cl.batch = processed{claimed: claimed, stopRenewing: func() {}}
		if len(claimed) > 0 {
			cl.batch.stopRenewing = j.renewWhileProcessing(ctx, claimed)
		}
	}()
	return cl
}

// wait returns the claimed batch (no uploads: the queue is empty).
func (cl *claim) wait() (processed, error) {
	<-cl.done
	return cl.batch, cl.err
}

// giveBackClaim gives back a batch claimed ahead that will not be
// processed (none: nothing to do).
func (j *Ingest) giveBackClaim(ctx context.Context, cl *claim) {
	if cl == nil {
		return
	}
	if b, err := cl.wait(); err == nil && len(b.claimed) > 0 {
		j.giveBack(ctx, b)
	}
}

// giveBack ends a batch that will not commit: its renewals stop and its
// claims are released.
func (j *Ingest) giveBack(ctx context.Context, b processed) {
	b.stopRenewing()
	j.release(ctx, b.claimed)
}

// committer writes and commits processed batches in the order they are
// handed to it, in three stages: a batch's lake files are written while
// the one before it is committed and the one before that has its figures
// kept.
type committer struct {
	queue   chan processed
	stopped chan struct{} // closed at the first failure: nothing more is taken
	done    chan error    // the first failure (or nil) once every batch is dealt with
	once    sync.Once
	failure error
}

// writtenBatch is a processed batch whose lake files are written.
type writtenBatch struct {
	processed
	written
}

// startCommitter starts writing and committing the batches handed to it;
// after a failure, each batch handed and not yet written is given back
// uncommitted, and so is each one written after a failed commit.
func (j *Ingest) startCommitter(ctx context.Context, runID string, counts *tally) *committer {
	c := &committer{queue: make(chan processed), stopped: make(chan struct{}), done: make(chan error, 1)}
	toCommit := make(chan writtenBatch)
	go func() {
		defer close(toCommit)
		var pending chatNames // the names of the batch handed on, perhaps not yet committed
		for b := range c.queue {
			if c.failed() {
				j.giveBack(ctx, b)
				continue
			}
			started := time.Now()
			w, err := j.writeBatch(ctx, runID, b.results, pending)
			counts.busy("writing", time.Since(started))
			if err != nil {
				j.giveBack(ctx, b)
				c.fail(err)
				continue
			}
			pending = namesOf(w.results)
			toCommit <- writtenBatch{processed: b, written: w}
		}
	}()
	committed := make(chan writtenBatch)
	go func() {
		defer close(committed)
		// A batch written is committed unless a commit before it failed:
		// a failure after it in the run's order (the next batch's write)
		// leaves it committed, however the stages are scheduled.
		var commitFailed bool
		for b := range toCommit {
			if commitFailed {
				j.giveBack(ctx, b.processed)
				continue
			}
			err := ctx.Err() // a stop before the commit commits nothing
			if err == nil {
				started := time.Now()
				err = j.record(ctx, b.written, counts)
				counts.busy("committing", time.Since(started))
			}
			if err != nil {
				j.giveBack(ctx, b.processed)
				c.fail(err)
				commitFailed = true
				continue
			}
			b.stopRenewing()
			committed <- b
		}
	}()
	// A committed batch's figures are kept, and the originals it let go
	// deleted, while the next batch commits: the commits, one at a time,
	// are what bounds a run on many cores. Figures are kept in commit
	// order, so a batch's never drops those of the one after it.
	go func() {
		for b := range committed {
			started := time.Now()
			keepFigures(ctx, j.Figures, j.Log, b.commit.Files, &b.rows)
			counts.busy("figures", time.Since(started))
			if err := j.deleteOriginals(ctx, counts); err != nil {
				c.fail(err)
			}
		}
		c.done <- c.failure
	}()
	return c
}

// fail records the committer's first failure and stops it taking more.
func (c *committer) fail(err error) {
	c.once.Do(func() {
		c.failure = err
		close(c.stopped)
	})
}

// failed reports whether the committer has failed.
func (c *committer) failed() bool {
	select {
	case <-c.stopped:
		return true
	default:
		return false
	}
}

// hand queues a processed batch for its commit, waiting while the one
// before it is written; false when the committer has failed and will
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

// writeBatch writes a processed batch's lake files, after failing the
// uploads whose chat names are taken (pending: those of the batch written
// before it); a stop (ctx) before it writes nothing.
func (j *Ingest) writeBatch(ctx context.Context, runID string, results []pipeline.Result, pending chatNames) (written, error) {
	if err := ctx.Err(); err != nil {
		return written{}, err
	}
	if err := j.refuseTakenNames(ctx, results, pending); err != nil {
		return written{}, err
	}
	return j.write(ctx, runID, results)
}
