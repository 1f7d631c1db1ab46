package api

import (
	"encoding/json"

	"github.com/gin-gonic/gin"

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
func (s *classifiersAPI) trainClassifiers(c *gin.Context) error {
	body, err := readBody(c)
	if err != nil {
		return err
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
		return pr
	}
	ctx := c.Request.Context()
	run, err := s.authoring.Train(ctx, actorOf(ctx), p)
	return s.jobStarted(c, run, err)
}
