package jobs

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/earshot/earshot/internal/cores"
	"github.com/earshot/earshot/pipeline"
	"github.com/earshot/earshot/warehouse/catalog"
	"github.com/earshot/earshot/warehouse/lake"
)

// Uploads is what the ingest job needs of the catalog's interactions
// (catalog.InteractionStore): claims, leases and the commit.
type Uploads interface {
	ClaimPending(ctx context.Context, owner string, mediaTypes []string, limit int, lease time.Duration) ([]catalog.Interaction, error)
	RenewLeases(ctx context.Context, owner string, ids []string, lease time.Duration) (int, error)
	ReleaseLeases(ctx context.Context, owner string, ids []string) (int, error)
	CommitIngest(ctx context.Context, ic catalog.IngestCommit) error
	TakenFileNames(ctx context.Context, orgID string, names, except []string) ([]string, error)
}

// LakeWriter writes a batch's Parquet files.
type LakeWriter interface {
	Write(ctx context.Context, runID string, b lake.Batch) ([]catalog.LakeFile, error)
}

// BatchAnalyzer adds classifier results to a processed upload's rows.
type BatchAnalyzer interface {
	Analyze(ctx context.Context, b *lake.Batch) (failed int, err error)
}

// AutoScorer answers the auto-scored evaluation forms of a batch's
// conversations from its classifier results (qa.AutoScorer).
type AutoScorer interface {
	Score(ctx context.Context, b *lake.Batch) ([]catalog.Evaluation, error)
}

// RecordingSilencer silences a call's recording where its transcript was
// redacted (pipeline.Recordings).
type RecordingSilencer interface {
	Silence(ctx context.Context, r *pipeline.Result) error
}

// Queue is a kind of upload and how many of them a batch claims: many
// chats (each takes milliseconds), few calls (each takes seconds to
// minutes, and the batch must commit well within its lease).
type Queue struct {
	MediaTypes []string
	BatchSize  int
}

// BatchConversations is about how many conversations a batch holds at
// most: after each batch the next claims as many uploads as the last
// ones' average would fill it with (at least one, at most BatchSize).
// A batch is processed, held in memory and written at once: smaller
// batches of archives ingest faster and with less memory (measured in
// docs/perf/), while single chats still go BatchSize at a time. A batch
// claims at least an upload per worker all the same: a batch of fewer
// uploads than workers leaves cores idle until it is committed.
const BatchConversations = 1000

// Ingest claims pending uploads, processes them with a bounded pool of
// workers, writes their rows to the lake and commits each batch at once.
type Ingest struct {
	Uploads    Uploads
	Lake       LakeWriter
	Open       pipeline.Opener
	Processors []pipeline.Processor
	// Analyzer, when set, classifies what the processors produced, in the
	// same worker and the same commit.
	Analyzer BatchAnalyzer
	// AutoScore, when set, answers the auto-scored evaluation forms on the
	// conversations the Analyzer classified: their Auto evaluations are
	// committed with them.
	AutoScore AutoScorer
	// Recordings, when set, silences in a call's kept original what the
	// Analyzer's redaction took out of its transcript, before the commit.
	Recordings RecordingSilencer
	// Originals, when set, deletes the staged originals each commit records
	// as to be deleted (and any a crash left) after it.
	Originals *StagedOriginals
	// Figures, when set, keeps the dashboards' figures of each commit.
	Figures FigureKeeper
	// Queues are claimed in order, each until it is empty.
	Queues []Queue
	Owner  string
	// Workers is how many cores the job keeps busy, and how many uploads
	// it processes at once.
	Workers int
	Lease   time.Duration
	Log     *slog.Logger
}

// EveryProcess: every process's ingest takes its share of the pending
// uploads (claims), so each runs its own schedule.
func (j *Ingest) EveryProcess() {}

// Run processes batches until no pending upload is left.
func (j *Ingest) Run(ctx context.Context, run catalog.JobRun) (map[string]int64, error) {
	counts := &tally{m: map[string]int64{"uploads": 0, "uploads_failed": 0, "conversations": 0, "conversations_failed": 0, "lake_files": 0,
		"classifier_results": 0, "classifier_failures": 0, "auto_evaluations": 0}, stages: map[string]time.Duration{}}
	// Every stage's CPU-bound work shares Workers cores: batches overlap
	// without the job using more.
	ctx = cores.With(ctx, cores.New(j.Workers))
	err := j.deleteOriginals(ctx, counts) // what a crash left
	for _, q := range j.Queues {
		if err != nil {
			break
		}
		err = j.drain(ctx, run, q, counts)
	}
	for stage, d := range counts.stages {
		counts.m[stage+"_ms"] = d.Milliseconds()
	}
	return counts.m, err
}

// tally is a run's counts; the parts of archives are committed, and
// counted, by the workers that read them. stages are how long each stage
// of the batches' pipeline was busy (processing, writing, committing,
// keeping the dashboards' figures): the one busy for about the run's whole
// time is what holds the others back; and how long processing waited for
// its batches' claims (claim_wait).
type tally struct {
	mu     sync.Mutex
	m      map[string]int64
	stages map[string]time.Duration
}

// busy adds d to the time a stage was busy.
func (t *tally) busy(stage string, d time.Duration) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.stages[stage] += d
}

// merge adds counts to the tally's.
func (t *tally) merge(counts map[string]int64) {
	t.mu.Lock()
	defer t.mu.Unlock()
	for k, n := range counts {
		t.m[k] += n
	}
}

// deleteOriginals deletes the staged originals commits recorded as to be
// deleted.
func (j *Ingest) deleteOriginals(ctx context.Context, counts *tally) error {
	if j.Originals == nil {
		return nil
	}
	n, err := j.Originals.Delete(ctx)
	counts.merge(map[string]int64{"originals_deleted": int64(n)})
	return err
}

// releaseTimeout bounds the release of a stopped batch's claims, which
// runs when the job's own context has ended.
const releaseTimeout = 5 * time.Second

// release gives back the claims of a batch that did not commit (a stop, a
// failure), so that the next run takes its uploads at once rather than
// when their leases run out; a release that fails leaves them to expire.
func (j *Ingest) release(ctx context.Context, claimed []catalog.Interaction) {
	ids := catalog.InteractionIDs(claimed)
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), releaseTimeout)
	defer cancel()
	n, err := j.Uploads.ReleaseLeases(ctx, j.Owner, ids)
	if err != nil {
		j.Log.Warn("the claims of a batch that did not commit could not be released; they expire with their lease", "uploads", len(ids), "err", err)
		return
	}
	j.Log.Info("released the claims of a batch that did not commit", "uploads", n)
}

// commit writes the results' rows to the lake and commits them, with
// their outcomes, in one transaction, then keeps their figures.
func (j *Ingest) commit(ctx context.Context, runID string, results []pipeline.Result, counts *tally) error {
	w, err := j.write(ctx, runID, results)
	if err != nil {
		return err
	}
	if err := j.record(ctx, w, counts); err != nil {
		return err
	}
	keepFigures(ctx, j.Figures, j.Log, w.commit.Files, &w.rows)
	return nil
}

// written is a batch whose lake files are written and wait for the
// catalog transaction that makes them part of the lake.
type written struct {
	results []pipeline.Result
	rows    lake.Batch
	commit  catalog.IngestCommit
}

// write writes the results' rows to the lake's files, which nothing reads
// until their commit records them.
func (j *Ingest) write(ctx context.Context, runID string, results []pipeline.Result) (written, error) {
	rows := make([]lake.Batch, len(results))
	w := written{results: results, commit: catalog.IngestCommit{RunID: runID, Owner: j.Owner, Outcomes: make([]catalog.UploadOutcome, 0, len(results))}}
	for i, r := range results {
		rows[i] = r.Batch
		w.commit.Outcomes = append(w.commit.Outcomes, r.Outcome)
	}
	w.rows = lake.Merge(rows)
	if w.rows.Rows() > 0 {
		var err error
		if w.commit.Files, err = j.Lake.Write(ctx, runID, w.rows); err != nil {
			return written{}, fmt.Errorf("write lake: %w", err)
		}
	}
	return w, nil
}

// record commits a written batch's files and outcomes in one transaction.
func (j *Ingest) record(ctx context.Context, w written, counts *tally) error {
	if err := j.Uploads.CommitIngest(ctx, w.commit); err != nil {
		return fmt.Errorf("commit: %w", err)
	}
	committed := map[string]int64{"lake_files": int64(len(w.commit.Files))}
	for _, r := range w.results {
		count(r, committed)
	}
	counts.merge(committed)
	return nil
}

// count adds what a committed result did to counts.
func count(r pipeline.Result, counts map[string]int64) {
	counts["classifier_results"] += int64(len(r.Batch.ClassifierResults))
	counts["auto_evaluations"] += int64(len(r.Outcome.Evaluations))
	counts["classifier_failures"] += int64(r.ClassifierFailures)
	failed := r.Outcome.Status == catalog.StatusFailedToProcess
	if !r.Outcome.Partial {
		counts["uploads"]++
		if failed {
			counts["uploads_failed"]++
		}
		if r.Outcome.Conversation && !failed {
			counts["conversations"]++
		}
	}
	for _, ch := range r.Outcome.Children {
		if ch.Status == catalog.StatusFailedToProcess {
			counts["conversations_failed"]++
		} else {
			counts["conversations"]++
		}
	}
}

// nextClaim is how many uploads the next batch claims, with workers
// processing them, after one of claimed uploads that held convs
// conversations (see BatchConversations): a whole number of uploads a
// worker, so that a batch of uploads of one size does not end with one
// worker on its last upload while the others wait for the next batch.
func nextClaim(batchSize, workers, claimed, convs int) int {
	workers = max(workers, 1)
	perUpload := max(convs/max(claimed, 1), 1)
	uploads := max(BatchConversations/perUpload, 1)
	return min((uploads+workers-1)/workers*workers, batchSize)
}

// renewWhileProcessing extends the batch's leases every third of a lease
// until stopped (after its commit), so that a batch of long calls is not
// taken over while it is being worked on; a worker that dies stops
// renewing and its uploads are taken over when the lease runs out.
func (j *Ingest) renewWhileProcessing(ctx context.Context, claimed []catalog.Interaction) (stop func()) {
	ids := catalog.InteractionIDs(claimed)
	done := make(chan struct{})
	finished := make(chan struct{})
	go func() {
		defer close(finished)
		tick := time.NewTicker(max(j.Lease/3, 10*time.Millisecond))
		defer tick.Stop()
		for {
			select {
			case <-done:
				return
			case <-ctx.Done():
				return
			case <-tick.C:
				held, err := j.Uploads.RenewLeases(ctx, j.Owner, ids, j.Lease)
				switch {
				case err != nil:
					j.Log.Warn("leases could not be renewed; retrying", "uploads", len(ids), "err", err)
				case held < len(ids):
					j.Log.Warn("leases were taken over by another worker; this batch will not commit", "held", held, "uploads", len(ids))
				}
			}
		}
	}()
	return func() {
		close(done)
		<-finished
	}
}

// process runs the claimed uploads through their processors, Workers at a
// time. A failure — even a panic — fails that upload alone; an upload
// whose part found its lease taken over is left out (its new owner
// commits it).
func (j *Ingest) process(ctx context.Context, runID string, claimed []catalog.Interaction, counts *tally) (kept []pipeline.Result, conversations int) {
	results := make([]pipeline.Result, len(claimed))
	var convs atomic.Int64 // the batch's conversations, committed parts of archives included
	lost := make([]bool, len(claimed))
	sem := make(chan struct{}, max(j.Workers, 1))
	ahead := newOpenAhead(j.Open)
	opened := 0 // the uploads opened ahead so far, in order
	var wg sync.WaitGroup
	for i, up := range claimed {
		for ; opened < len(claimed) && opened <= i+opensAhead; opened++ {
			if later := claimed[opened]; opensAheadOf(later) {
				ahead.start(ctx, *later.StagedKey)
			}
		}
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			results[i], lost[i] = j.processOne(ctx, runID, up, ahead.Open, counts, &convs)
			if up.StagedKey != nil {
				ahead.drop(*up.StagedKey)
			}
		}()
	}
	wg.Wait()
	kept = results[:0]
	for i, r := range results {
		if !lost[i] {
			kept = append(kept, r)
			convs.Add(int64(conversationsOf(r)))
		}
	}
	return kept, int(convs.Load())
}

// conversationsOf is how many conversations a result records, failed ones
// included.
func conversationsOf(r pipeline.Result) int {
	n := len(r.Outcome.Children)
	if r.Outcome.Conversation {
		n++
	}
	return n
}

func (j *Ingest) processOne(ctx context.Context, runID string, up catalog.Interaction, open pipeline.Opener, counts *tally, convs *atomic.Int64) (res pipeline.Result, lost bool) {
	// The log keeps the whole error; the client reads its reason.
	fail := func(err error, reason string) pipeline.Result {
		j.Log.Warn("upload failed", "id", up.ID, "org", up.OrgID, "err", err)
		return pipeline.Result{Outcome: catalog.UploadOutcome{Upload: up, Status: catalog.StatusFailedToProcess, Failures: []string{reason}}}
	}
	defer func() {
		if r := recover(); r != nil {
			res = fail(fmt.Errorf("processing crashed: %v", r), pipeline.InternalReason)
		}
	}()
	commitPart := func(ctx context.Context, part pipeline.Result) error {
		if err := j.analyze(ctx, &part); err != nil {
			return err
		}
		parts := []pipeline.Result{part}
		clash, err := j.takenNames(ctx, parts, nil)
		if err != nil {
			return err
		}
		if name, ok := clash[0]; ok {
			return nameTaken(name)
		}
		if err := j.commit(ctx, runID, parts, counts); err != nil {
			return err
		}
		convs.Add(int64(conversationsOf(part)))
		return nil
	}
	for _, p := range j.Processors {
		if p.Accepts(up) {
			r, err := p.Process(ctx, up, runID, open, commitPart)
			if errors.Is(err, catalog.ErrLeaseLost) {
				j.Log.Warn("an archive's lease was taken over by another worker while it was being committed in parts", "id", up.ID, "org", up.OrgID)
				return pipeline.Result{}, true
			}
			if err == nil {
				err = j.analyze(ctx, &r)
			}
			if err == nil && j.Recordings != nil {
				err = j.Recordings.Silence(ctx, &r)
			}
			if err != nil {
				return fail(err, pipeline.ClientReason(err)), false
			}
			return r, false
		}
	}
	err := errors.New("no processor handles this upload")
	return fail(err, err.Error()), false
}

// analyze classifies a result's rows (when the job has an Analyzer), and
// answers the auto-scored forms on them (when it has an AutoScorer).
func (j *Ingest) analyze(ctx context.Context, r *pipeline.Result) error {
	if j.Analyzer == nil {
		return nil
	}
	var err error
	if r.ClassifierFailures, err = j.Analyzer.Analyze(ctx, &r.Batch); err != nil || j.AutoScore == nil {
		return err
	}
	r.Outcome.Evaluations, err = j.AutoScore.Score(ctx, &r.Batch)
	return err
}
