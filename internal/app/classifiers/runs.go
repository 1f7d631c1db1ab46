package classifiers

import (
	"context"
	"time"

	"github.com/earshot/earshot/internal/app/access"
	"github.com/earshot/earshot/internal/invalid"
	"github.com/earshot/earshot/pipeline"
	"github.com/earshot/earshot/pipeline/analysis/trained"
	"github.com/earshot/earshot/warehouse/catalog"
)

const (
	// MaxDryRun conversations are evaluated at most; the answer says when
	// there were more.
	MaxDryRun      = 5000
	dryRunSamples  = 10
	dryRunPageSize = 500
)

// DryRun is what a classifier's current version finds over a range,
// nothing written.
type DryRun struct {
	Classifier              catalog.Classifier
	From, To                time.Time
	Evaluated, Hits, Errors int
	// Samples are public ids of conversations it hits.
	Samples []string
	// Truncated: more conversations matched the range than a dry run
	// evaluates; the counts are of the first ones by id.
	Truncated bool
}

// DryRun evaluates a classifier's current version over the processed
// conversations of the actor's reach that arrived in a range, writing
// nothing. It holds one of the organization's evaluation slots
// (pipeline.ErrNoSlot when none is free); a definition that no longer
// compiles is an *invalid.Field.
func (s Service) DryRun(ctx context.Context, actor access.Actor, id string, from, to time.Time) (DryRun, error) {
	if err := actor.Require(access.ManageClassifiers); err != nil {
		return DryRun{}, err
	}
	cl, err := s.Classifier(ctx, actor, id)
	if err != nil {
		return DryRun{}, err
	}
	release, err := s.Slots.Take(actor.OrgID)
	if err != nil {
		return DryRun{}, err
	}
	defer release()
	compiled, err := s.Compiler.Compile(actor.OrgID, pipeline.RegistryClassifier(cl))
	if err != nil {
		return DryRun{}, &invalid.Field{Detail: "The classifier's definition no longer compiles: " + err.Error() + "."}
	}
	tree, err := s.Hierarchy.Hierarchy(ctx, actor.OrgID)
	if err != nil {
		return DryRun{}, err
	}
	out := DryRun{Classifier: cl, From: from, To: to, Samples: []string{}}
	scope := actor.Scope()
	err = pipeline.EachProcessed(ctx, s.Conversations, s.Transcripts, actor.OrgID, from, to, dryRunPageSize, func(convs []pipeline.Stored, _ bool) (bool, error) {
		for _, conv := range convs {
			if !scope.Allows(conv.MediaType, conv.HierarchyNodeID) {
				continue
			}
			if out.Evaluated == MaxDryRun {
				out.Truncated = true
				return false, nil
			}
			out.Evaluated++
			res, err := compiled.Evaluate(ctx, pipeline.StoredConversation(conv.Interaction, conv.Segments, tree))
			switch {
			case err != nil:
				out.Errors++
			case res.Value == "true" || (res.Bool == nil && res.Value != ""):
				out.Hits++
				if len(out.Samples) < dryRunSamples {
					out.Samples = append(out.Samples, conv.Public())
				}
			}
		}
		return true, nil
	})
	return out, err
}

// Reclassify starts a job that runs a classifier again over the
// conversations that arrived in a range, replacing its results
// (pipeline.ErrNoSlot when the bounds on evaluations refuse it).
func (s Service) Reclassify(ctx context.Context, actor access.Actor, id string, from, to time.Time) (catalog.JobRun, error) {
	if err := actor.Require(access.ManageClassifiers); err != nil {
		return catalog.JobRun{}, err
	}
	cl, err := s.Classifier(ctx, actor, id)
	if err != nil {
		return catalog.JobRun{}, err
	}
	return s.Jobs.Start(ctx, "reclassify", actor.OrgID, catalog.ReclassifyParams{ClassifierID: cl.ID, From: from, To: to})
}

// Train checks a training's examples — each one readable, its stored
// conversation known, every label with both classes and enough
// conversations — and starts its job; a trained.InputError names what is
// wrong.
func (s Service) Train(ctx context.Context, actor access.Actor, p catalog.TrainParams) (catalog.JobRun, error) {
	if err := actor.Require(access.ManageClassifiers); err != nil {
		return catalog.JobRun{}, err
	}
	given, err := pipeline.ParseExamples(p.Examples)
	if err != nil {
		return catalog.JobRun{}, err
	}
	// The job reads stored conversations by their internal ids.
	var public []string
	for _, l := range given {
		if l.ConversationID != "" {
			public = append(public, l.ConversationID)
		}
	}
	own, err := s.Conversations.InternalIDs(ctx, actor.OrgID, public)
	if err != nil {
		return catalog.JobRun{}, err
	}
	for i := range given {
		if id, ok := own[given[i].ConversationID]; ok {
			given[i].ConversationID = id
		}
		if given[i].ConversationID == "" {
			continue
		}
		if p.Examples[i], err = given[i].MarshalJSON(); err != nil {
			return catalog.JobRun{}, err
		}
	}
	source := pipeline.TrainingSource{Records: s.Conversations, Transcripts: s.Transcripts, Reviews: s.Reviews, Classifiers: s.Store}
	examples, err := source.Examples(ctx, actor.OrgID, given, p.FromReviews)
	if err == nil {
		err = trained.Check(examples, trained.Options{Folds: p.Folds})
	}
	if err != nil {
		return catalog.JobRun{}, err
	}
	return s.Jobs.Start(ctx, "train", actor.OrgID, p)
}
