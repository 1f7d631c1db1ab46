package results

import (
	"context"
	"slices"
	"strings"

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
// classifiers for conversations (lake rows of a page, before the catalog
// check); CurrentClassifierResults chooses among them.
func (r *Reader) ClassifierCandidates(ctx context.Context, orgID string, convs []Conversation, classifierIDs []string) (*Candidates[ClassifierResult], error) {
	return readCandidates(ctx, r, orgID, "classifier_results", "classifier_id", "result, reasoning", convs, classifierIDs,
		func(cols []arrow.Array, i int, in *interner) ClassifierResult {
			return ClassifierResult{ClassifierID: in.of(cols[2].(stringColumn).Value(i)), Result: in.of(cols[3].(stringColumn).Value(i)),
				Reasoning: optionalString(cols[4], i)}
		})
}

// CurrentClassifierResults are the current results of conversations,
// each conversation's in classifier id order.
func CurrentClassifierResults(cands *Candidates[ClassifierResult], convs []Conversation) map[string][]ClassifierResult {
	out := cands.Current(convs)
	for _, list := range out {
		slices.SortFunc(list, func(a, b ClassifierResult) int { return strings.Compare(a.ClassifierID, b.ClassifierID) })
	}
	return out
}
