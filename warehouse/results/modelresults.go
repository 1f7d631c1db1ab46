package results

import (
	"context"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
)

// ModelResult is a classifier's current result for a conversation, as the
// model_results table records it.
type ModelResult struct {
	ModelID    string
	Result     *bool
	TextResult *string
	EventTime  time.Time
}

// ModelResults reads the current results of the models for conversations.
func (r *Reader) ModelResults(ctx context.Context, orgID string, convs []Conversation, modelIDs []string) (map[string][]ModelResult, error) {
	cands, err := r.ModelCandidates(ctx, PageQuery{OrgID: orgID}, convs, modelIDs)
	if err != nil {
		return nil, err
	}
	return cands.Current(Runs(convs)), nil
}

// ModelCandidates reads the model_results rows of the models for
// conversations (lake rows of q's page, before the catalog check); their
// Current chooses among them.
func (r *Reader) ModelCandidates(ctx context.Context, q PageQuery, convs []Conversation, modelIDs []string) (*Candidates[ModelResult], error) {
	return r.modelCandidates(ctx, q, convs, modelIDs, nil)
}

// ModelResultsByRow is ClassifierResultsByRow for model_results.
func (r *Reader) ModelResultsByRow(ctx context.Context, q PageQuery, rows []Conversation, modelIDs []string, each func(lo int, current [][]ModelResult)) error {
	return currentByRow(rows, !q.sparse(), func(h *handOver[ModelResult]) (*Candidates[ModelResult], error) {
		return r.modelCandidates(ctx, q, rows, modelIDs, h)
	}, each)
}

func (r *Reader) modelCandidates(ctx context.Context, q PageQuery, convs []Conversation, modelIDs []string, h *handOver[ModelResult]) (*Candidates[ModelResult], error) {
	return readCandidates(ctx, r, q, "model_results", "model_id", "result, text_result, event_time", convs, modelIDs, h,
		func(cols []arrow.Array, i int, model string, in *interner) ModelResult {
			return ModelResult{ModelID: model, Result: optionalBool(cols[3], i),
				TextResult: optionalInterned(cols[4], i, in), EventTime: timestampAt(cols[5], i)}
		})
}
