package jobs

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"math"

	"github.com/earshot/earshot/pipeline"
	"github.com/earshot/earshot/pipeline/analysis"
	"github.com/earshot/earshot/pipeline/analysis/trained"
	"github.com/earshot/earshot/warehouse/catalog"
)

// ClassifierPutter creates or updates classifiers by name
// (catalog.ClassifierStore).
type ClassifierPutter interface {
	PutByName(ctx context.Context, orgID string, inputs []catalog.ClassifierInput) ([]catalog.Classifier, error)
}

// Train trains one classifier per label of a run's examples
// (catalog.TrainParams) and installs each under its label's name: a new
// classifier, or a new version of the one of that name. The run's counts
// show the examples read and the labels trained so far.
type Train struct {
	Source      pipeline.TrainingSource
	Classifiers ClassifierPutter
	Progress    Progress
	Log         *slog.Logger
	// Slots bound trainings, reclassifications and dry runs together (nil:
	// unbounded).
	Slots *pipeline.Slots
}

// Admit takes an evaluation slot for the organization (pipeline.ErrNoSlot
// when none is free).
func (j *Train) Admit(orgID string) (func(), error) { return admit(j.Slots, orgID) }

// Run does one training (run.OrgID, run.Params).
func (j *Train) Run(ctx context.Context, run catalog.JobRun) (map[string]int64, error) {
	counts := map[string]int64{"examples": 0, "labels": 0, "classifiers": 0}
	var p catalog.TrainParams
	if run.OrgID == nil || json.Unmarshal(run.Params, &p) != nil {
		return counts, errors.New("a training needs an organization and its examples")
	}
	org := *run.OrgID
	given, err := pipeline.ParseExamples(p.Examples)
	if err != nil {
		return counts, err
	}
	examples, err := j.Source.Examples(ctx, org, given, p.FromReviews)
	if err != nil {
		return counts, err
	}
	counts["examples"] = int64(len(examples))
	t, err := trained.Train(examples, trained.Options{Source: "the training run " + run.ID, Seed: p.Seed, Folds: p.Folds,
		Progress: func(_ string, done, _ int) {
			counts["labels"] = int64(done)
			if err := j.Progress.UpdateJobRunCounts(ctx, run.ID, counts); err != nil {
				j.Log.Warn("training progress not recorded", "run", run.ID, "err", err)
			}
		}})
	if err != nil {
		return counts, err
	}
	// How the classifiers do together, out of fold: the share (in
	// thousandths) of conversations given exactly their labels, and of
	// labelled ones given none.
	counts["exact_label_set_permille"] = int64(math.Round(1000 * t.Together.ExactLabelSet))
	counts["outside_every_label_permille"] = int64(math.Round(1000 * t.Together.OutsideEveryLabel))
	installed, err := j.Classifiers.PutByName(ctx, org, ClassifierInputs(t.Models, p.CategoryName, !p.Inactive))
	counts["classifiers"] = int64(len(installed))
	if err != nil {
		return counts, fmt.Errorf("install the trained classifiers: %w", err)
	}
	return counts, nil
}

// ClassifierInputs are trained models as classifiers of a category, named
// after their labels, active or not.
func ClassifierInputs(models []*trained.Model, category string, active bool) []catalog.ClassifierInput {
	if category == "" {
		category = "Topics"
	}
	typ, yes := analysis.TypeCoreModel, true
	out := make([]catalog.ClassifierInput, len(models))
	for i, m := range models {
		name, description := m.Label, m.Description()
		out[i] = catalog.ClassifierInput{Name: &name, Description: &description, Type: &typ, CategoryName: &category,
			Reportable: &yes, Groupable: &yes, IsActive: &active, Definition: m.Definition()}
	}
	return out
}
