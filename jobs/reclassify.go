package jobs

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/earshot/earshot/pipeline"
	"github.com/earshot/earshot/pipeline/analysis/registry"
	"github.com/earshot/earshot/warehouse/catalog"
	"github.com/earshot/earshot/warehouse/lake"
)

// ClassifierGetter gives an organization's classifier (catalog.ClassifierStore).
type ClassifierGetter interface {
	Classifier(ctx context.Context, orgID, id string) (catalog.Classifier, error)
}

// ManifestAdder registers a run's new lake files with its counts, and its
// end with its last files (catalog.ManifestStore).
type ManifestAdder interface {
	AddRunFiles(ctx context.Context, runID string, files []catalog.LakeFile, counts map[string]int64, done bool) error
}

// Progress records a running job's counts (catalog.JobStore).
type Progress interface {
	UpdateJobRunCounts(ctx context.Context, id string, counts map[string]int64) error
}

// Rescorer brings the Auto evaluations of reclassified conversations up to
// date (qa.AutoScorer).
type Rescorer interface {
	Rescore(ctx context.Context, orgID, classifierID string, results map[string]string) (int, error)
}

// Reclassify re-runs one classifier over a date range and writes its new
// results under the run's id. Results are current per conversation and
// classifier by the newest run that is not older than the conversation's
// own (ingest) run, so these replace the classifier's earlier results and
// a later re-ingestion replaces them in turn. Each page of conversations is
// written and committed on its own; the run's counts show the progress.
type Reclassify struct {
	Classifiers  ClassifierGetter
	Hierarchy    pipeline.HierarchySource
	Interactions pipeline.Records
	Manifest     ManifestAdder
	Transcripts  pipeline.Transcripts
	Lake         LakeWriter
	Compiler     registry.Compiler
	// Figures, when set, keeps the dashboards' figures of the days
	// reclassified.
	Figures FigureKeeper
	// AutoScore, when set, updates the Auto evaluations whose answers
	// the classifier gives, page by page after each page's commit.
	AutoScore Rescorer
	Log       *slog.Logger
	// Page is how many conversations are classified and committed
	// together (default 500).
	Page int
	// Slots bound reclassifications, trainings and dry runs together (nil:
	// unbounded).
	Slots *pipeline.Slots
}

// Admit takes an evaluation slot for the organization (pipeline.ErrNoSlot
// when none is free).
func (j *Reclassify) Admit(orgID string) (func(), error) { return admit(j.Slots, orgID) }

// admit takes one of the slots that bound the jobs keeping the cores busy
// over an organization's conversations (none to take when slots is nil).
func admit(slots *pipeline.Slots, orgID string) (func(), error) {
	if slots == nil {
		return func() {}, nil
	}
	return slots.Take(orgID)
}

// Run does one reclassification (run.OrgID, run.Params).
func (j *Reclassify) Run(ctx context.Context, run catalog.JobRun) (map[string]int64, error) {
	counts := map[string]int64{"conversations": 0, "classifier_results": 0, "classifier_failures": 0, "lake_files": 0, "auto_evaluations": 0}
	var p catalog.ReclassifyParams
	if run.OrgID == nil || json.Unmarshal(run.Params, &p) != nil || p.ClassifierID == "" {
		return counts, errors.New("a reclassification needs an organization, a classifier and a date range")
	}
	org := *run.OrgID
	cl, err := j.Classifiers.Classifier(ctx, org, p.ClassifierID)
	if err != nil {
		return counts, fmt.Errorf("classifier %s: %w", p.ClassifierID, err)
	}
	compiled, err := j.Compiler.Compile(org, pipeline.RegistryClassifier(cl))
	if err != nil {
		return counts, fmt.Errorf("classifier %s version %d: %w", cl.ID, cl.Version, err)
	}
	set := registry.NewSet([]*registry.Compiled{compiled})
	tree, err := j.Hierarchy.Hierarchy(ctx, org)
	if err != nil {
		return counts, err
	}
	page := j.Page
	if page <= 0 {
		page = 500
	}
	// The figures of the days it wrote are kept once, at the end: each
	// page's files join the same days' clusters.
	var written []catalog.LakeFile
	defer func() { keepFigures(ctx, j.Figures, j.Log, written, nil) }()
	err = pipeline.EachProcessed(ctx, j.Interactions, j.Transcripts, org, p.From, p.To, page, func(convs []pipeline.Stored, last bool) (bool, error) {
		files, err := j.page(ctx, run.ID, org, set, tree, convs, counts, last)
		written = append(written, files...)
		return true, err
	})
	if err != nil {
		return counts, err
	}
	return counts, nil
}

// page classifies, writes and commits one page of conversations with the
// run's counts (the last page: with the run's end), and says which files
// it committed.
func (j *Reclassify) page(ctx context.Context, runID, org string, set *registry.Set, tree *catalog.Tree, convs []pipeline.Stored,
	counts map[string]int64, last bool) ([]catalog.LakeFile, error) {
	var b lake.Batch
	now := time.Now().UTC()
	var outcomes []registry.Outcome
	results := map[string]string{} // conversation → the classifier's new result
	for _, it := range convs {
		counts["conversations"]++
		outcomes = set.EvaluateInto(ctx, pipeline.StoredConversation(it.Interaction, it.Segments, tree), outcomes)
		for _, out := range outcomes {
			if out.Err != nil {
				counts["classifier_failures"]++
				continue
			}
			cr, mr := pipeline.ResultRows(it.ID, org, runID, it.ArrivedOn, out, now)
			b.ClassifierResults = append(b.ClassifierResults, cr)
			b.ModelResults = append(b.ModelResults, mr)
			results[it.ID] = cr.Result
		}
	}
	var files []catalog.LakeFile
	if len(b.ClassifierResults) > 0 {
		var err error
		if files, err = j.Lake.Write(ctx, runID, b); err != nil {
			return nil, fmt.Errorf("write lake: %w", err)
		}
	}
	counts["classifier_results"] += int64(len(b.ClassifierResults))
	counts["lake_files"] += int64(len(files))
	if err := j.Manifest.AddRunFiles(ctx, runID, files, counts, last); err != nil {
		return nil, fmt.Errorf("commit: %w", err)
	}
	if j.AutoScore != nil {
		// After the commit: a crash between the two leaves the Auto
		// evaluations on the earlier results until the classifier is
		// run again over these days.
		n, err := j.AutoScore.Rescore(ctx, org, set.Classifiers[0].ID, results)
		if err != nil {
			return files, fmt.Errorf("auto evaluations: %w", err)
		}
		counts["auto_evaluations"] += int64(n)
	}
	return files, nil
}
