package api

import (
	"context"
	"encoding/json"
	"errors"

	"github.com/gin-gonic/gin"

	"github.com/earshot/earshot/api/problem"
	"github.com/earshot/earshot/pipeline"
	"github.com/earshot/earshot/pipeline/analysis"
	"github.com/earshot/earshot/pipeline/analysis/trained"
	"github.com/earshot/earshot/warehouse/catalog"
)

// trainClassifiers is POST /Conversations/Classifiers/Train {examples,
// fromReviews, categoryName, seed, folds, activate}: one classifier per label of the
// labelled conversations (and with fromReviews, of the organization's
// reviews of its trained classifiers), installed by the label's name. The
// examples are read and checked first — a problem is a 400 naming the
// example or the label —, then a train job fits the models: 202 with its
// id, progress and outcome at GET /Jobs/{id}.
func (s *Server) trainClassifiers(c *gin.Context) {
	body, ok := readBody(c)
	if !ok {
		return
	}
	var raw []json.RawMessage
	if body.Has("examples") {
		body.Decode("examples", &raw)
	}
	fromReviews := body.Bool("fromReviews")
	p := catalog.TrainParams{Examples: raw, FromReviews: fromReviews != nil && *fromReviews, CategoryName: "Topics", Folds: trained.DefaultFolds, Seed: 1}
	if len(raw) == 0 && !p.FromReviews {
		body.Fail("examples", "is required: labelled conversations ({conversationId|text|turns, labels}), unless fromReviews is true.")
	}
	if v := body.String("categoryName"); v != nil {
		if p.CategoryName = oneOf(*v, analysis.Categories); p.CategoryName == "" {
			body.Fail("categoryName", "must be one of Skills, Topics, Process, SE Suite.")
		}
	}
	if body.Has("folds") && body.Decode("folds", &p.Folds) && (p.Folds < 2 || p.Folds > 20) {
		body.Fail("folds", "must be from 2 to 20.")
	}
	if body.Has("seed") {
		body.Decode("seed", &p.Seed)
	}
	if activate := body.Bool("activate"); activate != nil {
		p.Inactive = !*activate
	}
	if pr := body.Problem(); pr != nil {
		problem.Write(c, pr)
		return
	}
	run, err := s.queueTraining(c.Request.Context(), orgID(c), p)
	var input *trained.InputError
	if errors.As(err, &input) {
		trainingRefused(c, input)
		return
	}
	s.jobStarted(c, run, err)
}

// queueTraining checks a training's examples — each one readable, its
// stored conversation known, every label with both classes and enough
// conversations — and starts its job; a *trained.InputError names what is
// wrong. The API and the console train through it.
func (s *Server) queueTraining(ctx context.Context, org string, p catalog.TrainParams) (catalog.JobRun, error) {
	given, err := pipeline.ParseExamples(p.Examples)
	if err != nil {
		return catalog.JobRun{}, err
	}
	// The job reads stored conversations by their internal ids.
	var ids []string
	for _, l := range given {
		if l.ConversationID != "" {
			ids = append(ids, l.ConversationID)
		}
	}
	own, err := s.internalIDs(ctx, org, ids)
	if err != nil {
		return catalog.JobRun{}, err
	}
	for i := range given {
		if given[i].ConversationID == "" {
			continue
		}
		given[i].ConversationID, own = own[0], own[1:]
		if p.Examples[i], err = given[i].MarshalJSON(); err != nil {
			return catalog.JobRun{}, err
		}
	}
	source := pipeline.TrainingSource{Records: s.deps.Interactions, Transcripts: s.deps.Results, Reviews: s.deps.Reviews, Classifiers: s.deps.Classifiers}
	examples, err := source.Examples(ctx, org, given, p.FromReviews)
	if err == nil {
		err = trained.Check(examples, trained.Options{Folds: p.Folds})
	}
	if err != nil {
		return catalog.JobRun{}, err
	}
	return s.deps.Jobs.Start(ctx, "train", org, p)
}

// trainingRefused answers examples that cannot train.
func trainingRefused(c *gin.Context, err *trained.InputError) {
	problem.Write(c, problem.Field("examples", err.Message, "The examples cannot train classifiers: "+err.Message))
}
