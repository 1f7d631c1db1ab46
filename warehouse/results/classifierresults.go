package results

import (
	"context"
	"database/sql"
	"sort"
)

// ClassifierResult is a classifier's current result for a conversation,
// as the classifier_results table records it.
type ClassifierResult struct {
	ClassifierID string
	Version      int32
	Type         string
	Category     string
	Result       string
	Reasoning    *string
}

// ClassifierResults reads the current results of the classifiers for
// conversations, each conversation's in classifier id order.
func (r *Reader) ClassifierResults(ctx context.Context, orgID string, convs []Conversation, classifierIDs []string) (map[string][]ClassifierResult, error) {
	out, err := readCurrent(ctx, r, orgID, "classifier_results", "classifier_id",
		"conversation_id, run_id, classifier_id, classifier_version, classifier_type, category_name, result, reasoning", convs, classifierIDs,
		func(rows *sql.Rows) (conv, run, classifier string, c ClassifierResult, err error) {
			err = rows.Scan(&conv, &run, &c.ClassifierID, &c.Version, &c.Type, &c.Category, &c.Result, &c.Reasoning)
			return conv, run, c.ClassifierID, c, err
		})
	for _, list := range out {
		sort.Slice(list, func(i, j int) bool { return list[i].ClassifierID < list[j].ClassifierID })
	}
	return out, err
}
