package qa

import (
	"context"

	"github.com/earshot/earshot/internal/app/access"
	"github.com/earshot/earshot/internal/invalid"
)

// Sampler samples processed conversations for QA
// (catalog.InteractionStore.SampleQA).
type Sampler interface {
	SampleQA(ctx context.Context, rate float64, seed, orgID string) (moved, started int64, err error)
}

// Sampling is the server's QA sampling: the share per agent per week and
// the seed of its draws (the nightly sample job's settings).
type Sampling struct {
	Rate float64
	Seed string
}

// SampleNow samples the actor's organization now, as the nightly job
// does, if the actor manages evaluations: how many conversations it
// moved to Sampled and how many workflows it started.
func (s Service) SampleNow(ctx context.Context, actor access.Actor) (moved, started int64, err error) {
	if err := actor.Require(access.ManageEvaluations); err != nil {
		return 0, 0, err
	}
	if s.Sampling.Rate == 0 {
		return 0, 0, &invalid.Field{Message: "QA sampling is off on this server (its --sample-rate is 0)."}
	}
	return s.Sampler.SampleQA(ctx, s.Sampling.Rate, s.Sampling.Seed, actor.OrgID)
}
