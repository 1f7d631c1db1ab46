package api

import (
	"errors"
	"net/http"

	"github.com/gin-gonic/gin"

	"github.com/earshot/earshot/internal/contract/dates"
	"github.com/earshot/earshot/pipeline"
)

// testResult is the answer of a dry run.
type testResult struct {
	ClassifierID          string          `json:"classifierId"`
	Version               int             `json:"version"`
	StartDate             dates.Timestamp `json:"startDate"`
	EndDate               dates.Timestamp `json:"endDate"`
	Evaluated             int             `json:"evaluated"`
	Hits                  int             `json:"hits"`
	Errors                int             `json:"errors"`
	SampleConversationIDs []string        `json:"sampleConversationIds"`
	// Truncated: more conversations matched the range than a dry run
	// evaluates; the counts are of the first ones by id.
	Truncated bool `json:"truncated"`
}

// testClassifier is POST /Conversations/Classifiers/{id}/Test
// {startDate, endDate}: the classifier's current version over the
// organization's processed conversations that arrived in the range
// (ReadyToSample and Sampled; at most 31 days), nothing written.
func (s *classifiersAPI) testClassifier(c *gin.Context) error {
	id, from, to, err := classifierRange(c)
	if err != nil {
		return err
	}
	ctx := c.Request.Context()
	out, err := s.authoring.DryRun(ctx, actorOf(ctx), id, from, to)
	switch {
	case errors.Is(err, pipeline.ErrNoSlot):
		return noEvaluationSlot()
	case err != nil:
		return missing(err, classifierNotFound)
	default:
		c.JSON(http.StatusOK, testResult{ClassifierID: out.Classifier.ID, Version: out.Classifier.Version, StartDate: dates.Timestamp(out.From),
			EndDate: dates.Timestamp(out.To), Evaluated: out.Evaluated, Hits: out.Hits, Errors: out.Errors, SampleConversationIDs: out.Samples,
			Truncated: out.Truncated})
	}
	return nil
}
