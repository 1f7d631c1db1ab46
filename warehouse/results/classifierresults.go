package results

import (
	"context"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/earshot/earshot/warehouse/lake"
)

// ClassifierResult is a classifier's current result for a conversation,
// as the classifier_results table records it.
type ClassifierResult struct {
	ClassifierID string
	Result       string
	Reasoning    *string
}

// classifierResults are classifier_results rows as pages read them.
var classifierResults = resultsTable[ClassifierResult]{name: "classifier_results", key: "classifier_id", columns: "result, reasoning",
	decode: func(cols []arrow.Array, i int, classifier string, in *interner) ClassifierResult {
		return ClassifierResult{ClassifierID: classifier, Result: in.of(cols[3].(stringColumn).Value(i)), Reasoning: optionalString(cols[4], i)}
	}}

// ClassifierCandidates reads the classifier_results rows of the
// classifiers for conversations (lake rows of q's page, before the catalog
// check); their Current chooses among them.
func (r *Reader) ClassifierCandidates(ctx context.Context, q PageQuery, convs []Conversation, classifierIDs []string) (*Candidates[ClassifierResult], error) {
	return readCandidates(ctx, r, q, classifierResults, convs, classifierIDs, nil)
}

// ClassifierResultsByRow reads the current classifier_results of each of
// a batch's lake rows (CurrentOfEach of ClassifierCandidates) and hands
// them to each a range of rows at a time, beside the rest of the read
// (currentByRow, which says how each is called).
func (r *Reader) ClassifierResultsByRow(ctx context.Context, q PageQuery, rows []Conversation, classifierIDs []string, each func(lo int, current [][]ClassifierResult)) error {
	return resultsByRow(ctx, r, q, classifierResults, rows, classifierIDs, each)
}

// Evidence is a classifier's current result for one conversation with
// where it was found.
type Evidence struct {
	ClassifierID string
	Result       string
	Spans        []lake.Evidence
}

// ClassifierEvidence reads the current results of classifiers for one
// conversation with their evidence spans (a conversation page shows
// them; pages of many read ClassifierCandidates, without the spans).
func (r *Reader) ClassifierEvidence(ctx context.Context, orgID string, conv Conversation, classifierIDs []string) ([]Evidence, error) {
	cands, err := readCandidates(ctx, r, PageQuery{OrgID: orgID}, classifierEvidence, []Conversation{conv}, classifierIDs, nil)
	if err != nil {
		return nil, err
	}
	return cands.Current(Runs([]Conversation{conv}))[conv.ID], nil
}

// classifierEvidence are classifier_results rows with their evidence.
var classifierEvidence = resultsTable[Evidence]{name: "classifier_results", key: "classifier_id", columns: "result, evidence",
	decode: func(cols []arrow.Array, i int, classifier string, in *interner) Evidence {
		return Evidence{ClassifierID: classifier, Result: in.of(cols[3].(stringColumn).Value(i)), Spans: evidenceAt(cols[4].(*array.List), i)}
	}}

// evidenceAt reads the evidence list of row i.
func evidenceAt(list *array.List, i int) []lake.Evidence {
	if list.IsNull(i) {
		return nil
	}
	start, end := list.ValueOffsets(i)
	items := list.ListValues().(*array.Struct)
	turn, from, to := items.Field(0).(*array.Int32), items.Field(1).(*array.Int64), items.Field(2).(*array.Int64)
	text := items.Field(3).(interface{ Value(int) string }) // DuckDB hands strings as one of arrow's string arrays
	out := make([]lake.Evidence, 0, end-start)
	for j := int(start); j < int(end); j++ {
		out = append(out, lake.Evidence{Turn: turn.Value(j), StartMs: from.Value(j), EndMs: to.Value(j), Text: strings.Clone(text.Value(j))})
	}
	return out
}
