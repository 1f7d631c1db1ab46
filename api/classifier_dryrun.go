package api

import (
	"context"
	"errors"
	"net/http"
	"time"

	"github.com/gin-gonic/gin"

	"github.com/earshot/earshot/api/problem"
	"github.com/earshot/earshot/internal/contract/dates"
	"github.com/earshot/earshot/pipeline"
	"github.com/earshot/earshot/warehouse/catalog"
)

const (
	// maxTestConversations are evaluated at most; the answer says when
	// there were more.
	maxTestConversations = 5000
	testSampleSize       = 10
	testPage             = 500
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
func (s *Server) testClassifier(c *gin.Context) {
	cl, from, to, ok := s.classifierRange(c)
	if !ok {
		return
	}
	out, err := s.dryRun(c.Request.Context(), orgID(c), reads(c.Request.Context()), cl, from, to)
	var invalid *definitionInvalid
	switch {
	case errors.Is(err, pipeline.ErrNoSlot):
		noEvaluationSlot(c)
	case errors.As(err, &invalid):
		problem.Write(c, problem.New(http.StatusBadRequest, "The classifier's definition no longer compiles: "+invalid.Error()+"."))
	case err != nil:
		problem.Write(c, s.internal(c, err))
	default:
		c.JSON(http.StatusOK, out)
	}
}

// dryRun evaluates a classifier's current version over the processed
// conversations of an organization that arrived in a range and that a
// scope may read (nil: all), writing nothing: the test of the API and of
// the console. It holds one of the organization's evaluation slots
// (pipeline.ErrNoSlot when none is free).
func (s *Server) dryRun(ctx context.Context, org string, scope catalog.Scope, cl catalog.Classifier, from, to time.Time) (testResult, error) {
	release, err := s.deps.Evaluations.Take(org)
	if err != nil {
		return testResult{}, err
	}
	defer release()
	compiled, err := s.deps.Compiler.Compile(org, pipeline.RegistryClassifier(cl))
	if err != nil {
		return testResult{}, &definitionInvalid{err: err}
	}
	tree, err := s.deps.People.Hierarchy(ctx, org)
	if err != nil {
		return testResult{}, err
	}
	out := testResult{ClassifierID: cl.ID, Version: cl.Version, StartDate: dates.Timestamp(from), EndDate: dates.Timestamp(to),
		SampleConversationIDs: []string{}}
	err = pipeline.EachProcessed(ctx, s.deps.Interactions, s.deps.Results, org, from, to, testPage, func(convs []pipeline.Stored) (bool, error) {
		for _, conv := range convs {
			if !scope.Allows(conv.MediaType, conv.HierarchyNodeID) {
				continue
			}
			if out.Evaluated == maxTestConversations {
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
				if len(out.SampleConversationIDs) < testSampleSize {
					out.SampleConversationIDs = append(out.SampleConversationIDs, conv.Public())
				}
			}
		}
		return true, nil
	})
	return out, err
}
