package jobs

import (
	"context"
	"fmt"
	"log/slog"

	"github.com/earshot/earshot/warehouse/catalog"
)

// QASampler draws the QA sample (catalog.InteractionStore).
type QASampler interface {
	SampleQA(ctx context.Context, rate float64, seed, orgID string) (moved, workflows int64, err error)
}

// Sample is the QA sampling job: it moves a share of each agent's
// ReadyToSample conversations of each week to Sampled, the queue human
// reviewers work from, and starts a review workflow for each of them from
// every template that asks for one. Deterministic for a seed, and
// idempotent.
type Sample struct {
	Sampler QASampler
	Rate    float64 // share per agent per week, 0..1
	Seed    string
	Log     *slog.Logger
}

// Run samples every organization.
func (j *Sample) Run(ctx context.Context, _ catalog.JobRun) (map[string]int64, error) {
	if j.Rate < 0 || j.Rate > 1 {
		return nil, fmt.Errorf("the sample rate %v is not between 0 and 1", j.Rate)
	}
	moved, workflows, err := j.Sampler.SampleQA(ctx, j.Rate, j.Seed, "")
	if err == nil && moved > 0 {
		j.Log.Info("sampled conversations for QA", "moved", moved, "rate", j.Rate, "workflows", workflows)
	}
	return map[string]int64{"sampled": moved, "workflows": workflows}, err
}
