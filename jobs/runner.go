// Package jobs runs Earshot's batch jobs — ingest, compact, sample and
// export on a cron schedule inside `earshot serve` or once from the command
// line, reclassify when the API starts it — recording every run in the
// catalog and counting runs in the metrics.
package jobs

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"sort"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/robfig/cron/v3"

	"github.com/earshot/earshot/warehouse/catalog"
)

// Job is one kind of batch work.
type Job interface {
	// Run does the work and returns its counters (uploads processed, …).
	Run(ctx context.Context, run catalog.JobRun) (map[string]int64, error)
}

// Recorder keeps job runs.
type Recorder interface {
	StartJobRun(ctx context.Context, job, owner string) (catalog.JobRun, error)
	StartJobRunFor(ctx context.Context, job, owner, orgID string, params json.RawMessage) (catalog.JobRun, error)
	FinishJobRun(ctx context.Context, r catalog.JobRun, counts map[string]int64, runErr error) (catalog.JobRun, error)
	ClaimTick(ctx context.Context, job string, tick time.Time, owner string) (bool, error)
	Heartbeat(ctx context.Context, owner string) error
}

// ErrUnknownJob names a job that does not exist.
var ErrUnknownJob = errors.New("unknown job")

// ErrBusy: the job is running already in this process.
var ErrBusy = errors.New("the job is already running")

// Runner runs jobs by name, one run of a job at a time.
type Runner struct {
	rec    Recorder
	owner  string
	log    *slog.Logger
	jobs   map[string]Job
	mu     sync.Mutex
	active map[string]bool
	runs   *prometheus.CounterVec
	counts *prometheus.CounterVec
	// base bounds the runs started in the background (Start): the
	// server's lifetime.
	base       context.Context
	background sync.WaitGroup
	// heartbeat is how often a running run's process beats.
	heartbeat time.Duration
}

// NewRunner makes a runner; owner names this process in job runs and leases.
func NewRunner(rec Recorder, owner string, log *slog.Logger, reg prometheus.Registerer) *Runner {
	r := &Runner{rec: rec, owner: owner, log: log, jobs: map[string]Job{}, active: map[string]bool{}, base: context.Background(),
		heartbeat: HeartbeatInterval,
		runs:      prometheus.NewCounterVec(prometheus.CounterOpts{Name: "earshot_job_runs_total", Help: "Job runs by job and outcome."}, []string{"job", "status"}),
		counts: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "earshot_job_items_total",
			Help: "What job runs counted, by job and counter (conversations processed, failed, ...)."}, []string{"job", "counter"}),
	}
	if reg != nil {
		reg.MustRegister(r.runs, r.counts)
	}
	return r
}

// Register adds a job under a name.
func (r *Runner) Register(name string, j Job) { r.jobs[name] = j }

// Names lists the registered jobs.
func (r *Runner) Names() []string {
	out := make([]string, 0, len(r.jobs))
	for n := range r.jobs {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// Run runs a job once and records the run.
func (r *Runner) Run(ctx context.Context, name string) (catalog.JobRun, error) {
	j, ok := r.jobs[name]
	if !ok {
		return catalog.JobRun{}, fmt.Errorf("%w %q (jobs: %v)", ErrUnknownJob, name, r.Names())
	}
	r.mu.Lock()
	if r.active[name] {
		r.mu.Unlock()
		return catalog.JobRun{}, fmt.Errorf("%s: %w", name, ErrBusy)
	}
	r.active[name] = true
	r.mu.Unlock()
	defer func() {
		r.mu.Lock()
		delete(r.active, name)
		r.mu.Unlock()
	}()

	run, err := r.rec.StartJobRun(ctx, name, r.owner)
	if err != nil {
		return run, fmt.Errorf("record job start: %w", err)
	}
	return r.execute(ctx, j, run)
}

// SetBase sets the context background runs (Start) live in: they stop
// when it ends.
func (r *Runner) SetBase(ctx context.Context) { r.base = ctx }

// An Admitter is a job that bounds its runs: Admit refuses a run for the
// organization, or admits it until release is called at its end.
type Admitter interface {
	Admit(orgID string) (release func(), err error)
}

// Start records a run of a job for an organization, with its parameters,
// and runs it in the background; the recorded run's counts show its
// progress. Runs of a parameterized job may overlap, within the job's
// bounds (Admitter): a run refused there is not recorded.
func (r *Runner) Start(ctx context.Context, name, orgID string, params any) (catalog.JobRun, error) {
	j, ok := r.jobs[name]
	if !ok {
		return catalog.JobRun{}, fmt.Errorf("%w %q (jobs: %v)", ErrUnknownJob, name, r.Names())
	}
	data, err := json.Marshal(params)
	if err != nil {
		return catalog.JobRun{}, err
	}
	release := func() {}
	if a, ok := j.(Admitter); ok {
		if release, err = a.Admit(orgID); err != nil {
			return catalog.JobRun{}, err
		}
	}
	run, err := r.rec.StartJobRunFor(ctx, name, r.owner, orgID, data)
	if err != nil {
		release()
		return run, fmt.Errorf("record job start: %w", err)
	}
	r.background.Add(1)
	go func() {
		defer r.background.Done()
		defer release()
		r.execute(r.base, j, run)
	}()
	return run, nil
}

// Wait waits for the background runs (tests; a server stopping).
func (r *Runner) Wait() { r.background.Wait() }

// execute runs a recorded run and records its end.
func (r *Runner) execute(ctx context.Context, j Job, run catalog.JobRun) (catalog.JobRun, error) {
	name := run.Job
	r.log.Debug("job started", "job", name, "run", run.ID)
	stopBeating := r.beat(ctx)
	counts, runErr := j.Run(ctx, run)
	stopBeating()
	run, err := r.rec.FinishJobRun(context.WithoutCancel(ctx), run, counts, runErr)
	if err != nil {
		return run, fmt.Errorf("record job end: %w", err)
	}
	r.runs.WithLabelValues(name, run.Status).Inc()
	for k, v := range counts {
		r.counts.WithLabelValues(name, k).Add(float64(v))
	}
	r.log.Log(ctx, finishLevel(counts, runErr), "job finished", "job", name, "run", run.ID, "status", run.Status, "counts", counts, "err", runErr)
	return run, runErr
}

// finishLevel is the level a run's end is logged at: an error for a
// failure, debug for a run that found nothing to do (a schedule's ticks
// would fill the log), info for one that did something.
func finishLevel(counts map[string]int64, err error) slog.Level {
	if err != nil {
		return slog.LevelError
	}
	for _, n := range counts {
		if n != 0 {
			return slog.LevelInfo
		}
	}
	return slog.LevelDebug
}

// EveryProcess is a job every process runs on its own schedule, because
// its runs share the work row by row (ingest: claims and leases); any other
// scheduled job runs once per tick across the processes of a catalog.
type EveryProcess interface {
	EveryProcess()
}

// Schedule runs jobs on cron specs (job name → spec; "" or "off" = not
// scheduled) until ctx ends: each of its ticks through RunTick.
func (r *Runner) Schedule(ctx context.Context, specs map[string]string) (stop func(), err error) {
	c := cron.New()
	for name, spec := range specs {
		if spec == "" || spec == "off" {
			continue
		}
		if _, ok := r.jobs[name]; !ok {
			return nil, fmt.Errorf("schedule: %w %q", ErrUnknownJob, name)
		}
		sched, err := cron.ParseStandard(spec)
		if err != nil {
			return nil, fmt.Errorf("schedule %s %q: %w", name, spec, err)
		}
		length := tickLength(sched)
		c.Schedule(sched, cron.FuncJob(func() {
			if err := r.RunTick(ctx, name, time.Now().UTC().Truncate(length)); err != nil {
				r.log.Error("scheduled job failed", "job", name, "err", err)
			}
		}))
	}
	c.Start()
	return func() { <-c.Stop().Done() }, nil
}

// RunTick runs a scheduled job for one tick of its schedule, unless the job
// is still running here from an earlier one, or — for a job that does not
// run in every process (EveryProcess) — another process sharing the
// catalog claimed that tick first.
func (r *Runner) RunTick(ctx context.Context, name string, tick time.Time) error {
	if _, everyProcess := r.jobs[name].(EveryProcess); !everyProcess {
		claimed, err := r.rec.ClaimTick(ctx, name, tick, r.owner)
		if err != nil {
			return fmt.Errorf("claim the tick: %w", err)
		}
		if !claimed {
			r.log.Debug("another process runs this tick", "job", name, "tick", tick)
			return nil
		}
	}
	if _, err := r.Run(ctx, name); err != nil && !errors.Is(err, ErrBusy) {
		return err
	}
	return nil
}

// tickLength is how finely a schedule's ticks are told apart, alike in
// every process: a cron spec fires on whole minutes, "@every D" every D
// (its ticks counted from the epoch, as processes start at other times).
func tickLength(sched cron.Schedule) time.Duration {
	if every, ok := sched.(cron.ConstantDelaySchedule); ok {
		return every.Delay
	}
	return time.Minute
}
