package jobs

import (
	"context"
	"log/slog"
	"time"
)

// A process beats while a run of it is running (Runner.beat); a run still
// "running" whose process has not beaten for HeartbeatStale was
// interrupted (WatchInterrupted marks it failed), on whatever host it ran.
const (
	HeartbeatInterval = 10 * time.Second
	HeartbeatStale    = 3 * HeartbeatInterval
)

// beat records that this process is alive now and every heartbeat
// interval until stopped.
func (r *Runner) beat(ctx context.Context) (stop func()) {
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		tick := time.NewTicker(r.heartbeat)
		defer tick.Stop()
		for {
			if err := r.rec.Heartbeat(context.WithoutCancel(ctx), r.owner); err != nil {
				r.log.Warn("heartbeat not recorded", "err", err)
			}
			select {
			case <-ctx.Done():
				return
			case <-tick.C:
			}
		}
	}()
	return func() {
		cancel()
		<-done
	}
}

// InterruptedRuns marks the runs of stopped processes failed
// (catalog.JobStore).
type InterruptedRuns interface {
	FailInterruptedRuns(ctx context.Context, since time.Time) (int64, error)
}

// WatchInterrupted marks the runs of processes that stopped beating
// failed, now and every HeartbeatStale until ctx ends.
func WatchInterrupted(ctx context.Context, runs InterruptedRuns, log *slog.Logger) {
	tick := time.NewTicker(HeartbeatStale)
	defer tick.Stop()
	for {
		n, err := runs.FailInterruptedRuns(ctx, time.Now().Add(-HeartbeatStale))
		switch {
		case err != nil && ctx.Err() == nil:
			log.Warn("interrupted job runs not checked", "err", err)
		case n > 0:
			log.Warn("job runs of a stopped process marked failed", "runs", n)
		}
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
	}
}
