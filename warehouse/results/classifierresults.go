package results

import (
	"context"

	"github.com/apache/arrow-go/v18/arrow"
)

// ClassifierResult is a classifier's current result for a conversation,
// as the classifier_results table records it.
type ClassifierResult struct {
	ClassifierID string
	Result       string
	Reasoning    *string
}

// ClassifierCandidates reads the classifier_results rows of the
// classifiers for conversations (lake rows of q's page, before the catalog
// check); their Current chooses among them.
func (r *Reader) ClassifierCandidates(ctx context.Context, q PageQuery, convs []Conversation, classifierIDs []string) (*Candidates[ClassifierResult], error) {
	return readCandidates(ctx, r, q, "classifier_results", "classifier_id", "result, reasoning", convs, classifierIDs,
		func(cols []arrow.Array, i int, classifier string, in *interner) ClassifierResult {
			return ClassifierResult{ClassifierID: classifier, Result: in.of(cols[3].(stringColumn).Value(i)),
				Reasoning: optionalString(cols[4], i)}
		})
}
