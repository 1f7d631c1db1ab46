package jobs

import (
	"context"
	"runtime"
	"testing"
	"time"

	"github.com/earshot/earshot/warehouse/catalog"
)

// blockingJob runs until released.
type blockingJob struct{ started, release chan struct{} }

func (j blockingJob) Run(ctx context.Context, _ catalog.JobRun) (map[string]int64, error) {
	close(j.started)
	<-j.release
	return map[string]int64{"done": 1}, nil
}

// A run whose process beats stays running however long it takes, while
// another process checks for interrupted runs; a run whose process stopped
// beating is marked failed.
func TestHeartbeatKeepsALiveRunRunning(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	e := newEnv(t)
	e.runner.heartbeat = 5 * time.Millisecond
	job := blockingJob{started: make(chan struct{}), release: make(chan struct{})}
	e.runner.Register("block", job)
	done := make(chan catalog.JobRun)
	go func() {
		run, _ := e.runner.Run(ctx, "block")
		done <- run
	}()
	<-job.started
	dead, err := e.cat.Jobs.StartJobRun(ctx, "compact", "stopped-host:42")
	if err != nil {
		t.Fatal(err)
	}
	// Wait until the live run's process beats after both runs began.
	since := time.Now().UTC().Truncate(time.Microsecond)
	for {
		var beats int
		if err := e.sql.QueryRow(`SELECT count(*) FROM process_heartbeats WHERE owner = 'test-worker' AND beat_on >= ?`, since).
			Scan(&beats); err != nil {
			t.Fatal(err)
		}
		if beats > 0 {
			break
		}
		runtime.Gosched()
	}
	n, err := e.cat.Jobs.FailInterruptedRuns(ctx, since)
	if err != nil || n != 1 {
		t.Fatalf("marked %d runs (%v), want the stopped process's one", n, err)
	}
	runs, _ := e.cat.Jobs.JobRuns(ctx, "compact", 1)
	if len(runs) != 1 || runs[0].ID != dead.ID || runs[0].Status != "failed" {
		t.Errorf("the stopped process's run: %+v", runs)
	}
	close(job.release)
	if run := <-done; run.Status != "succeeded" {
		t.Errorf("the live run ended %s", run.Status)
	}
}
