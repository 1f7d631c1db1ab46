package jobs

import (
	"context"
	"io"
	"log/slog"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/earshot/earshot/warehouse/catalog"
	"github.com/robfig/cron/v3"
)

// countingJob counts its runs.
type countingJob struct{ runs atomic.Int64 }

func (j *countingJob) Run(context.Context, catalog.JobRun) (map[string]int64, error) {
	j.runs.Add(1)
	time.Sleep(20 * time.Millisecond) // long enough for the other process's attempt to overlap
	return map[string]int64{}, nil
}

// Two processes on one catalog (two handles on the file, as two servers
// would have) schedule the same job: each tick runs once, in one of them,
// and the next tick runs again.
func TestScheduledTicksRunOnceAcrossProcesses(t *testing.T) {
	ctx := context.Background()
	path := "sqlite://" + filepath.Join(t.TempDir(), "catalog.db")
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	job := &countingJob{}
	var runners []*Runner
	for _, owner := range []string{"host-a:1", "host-b:2"} {
		cat, err := catalog.Open(ctx, path)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { cat.Close() })
		r := NewRunner(cat.Jobs, owner, log, nil)
		r.Register("sample", job)
		runners = append(runners, r)
	}
	tick := time.Date(2025, 10, 3, 2, 0, 0, 0, time.UTC)
	for n, at := range []time.Time{tick, tick, tick.Add(time.Hour)} {
		var wg sync.WaitGroup
		for _, r := range runners {
			wg.Go(func() {
				if err := r.RunTick(ctx, "sample", at); err != nil {
					t.Error(err)
				}
			})
		}
		wg.Wait()
		want := []int64{1, 1, 2}[n]
		if got := job.runs.Load(); got != want {
			t.Fatalf("after tick %d (%s): %d runs, want %d", n+1, at.Format(time.TimeOnly), got, want)
		}
	}
}

// Which scheduled jobs run in every process: ingest (its work is shared
// row by row through claims); compact, sample and export run once a tick.
func TestWhichJobsRunInEveryProcess(t *testing.T) {
	for name, c := range map[string]struct {
		job  Job
		want bool
	}{
		"ingest": {&Ingest{}, true}, "compact": {&Compact{}, false}, "sample": {&Sample{}, false}, "export": {&Export{}, false},
	} {
		if _, got := c.job.(EveryProcess); got != c.want {
			t.Errorf("%s runs in every process: %v, want %v", name, got, c.want)
		}
	}
}

func TestTickLength(t *testing.T) {
	for spec, want := range map[string]time.Duration{"@every 3s": 3 * time.Second, "@every 1m": time.Minute, "0 2 * * *": time.Minute, "@daily": time.Minute} {
		sched, err := cron.ParseStandard(spec)
		if got := tickLength(sched); err != nil || got != want {
			t.Errorf("%s: %v %v, want %v", spec, got, err, want)
		}
	}
	if _, err := (&Runner{jobs: map[string]Job{"sample": &Sample{}}}).Schedule(context.Background(), map[string]string{"sample": "every now and then"}); err == nil {
		t.Error("a bad spec was taken")
	}
}
