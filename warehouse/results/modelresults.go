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

// modelResults are model_results rows as pages read them.
var modelResults = resultsTable[ModelResult]{name: "model_results", key: "model_id", columns: "result, text_result, event_time",
	decode: func(cols []arrow.Array, i int, model string, in *interner) ModelResult {
		return ModelResult{ModelID: model, Result: optionalBool(cols[3], i), TextResult: optionalInterned(cols[4], i, in), EventTime: timestampAt(cols[5], i)}
	}}

// ModelCandidates reads the model_results rows of the models for
// conversations (lake rows of q's page, before the catalog check); their
// Current chooses among them.
func (r *Reader) ModelCandidates(ctx context.Context, q PageQuery, convs []Conversation, modelIDs []string) (*Candidates[ModelResult], error) {
	return readCandidates(ctx, r, q, modelResults, convs, modelIDs, nil)
}

// ModelResultsByRow is ClassifierResultsByRow for model_results.
func (r *Reader) ModelResultsByRow(ctx context.Context, q PageQuery, rows []Conversation, modelIDs []string, each func(lo int, current [][]ModelResult)) error {
	return resultsByRow(ctx, r, q, modelResults, rows, modelIDs, each)
}
