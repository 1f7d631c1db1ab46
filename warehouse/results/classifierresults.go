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
	if len(convs) == 0 || len(classifierIDs) == 0 {
		return map[string][]ClassifierResult{}, nil
	}
	paths, lo, hi, err := r.resultPaths(ctx, orgID, "classifier_results", convs)
	if err != nil || len(paths) == 0 {
		return map[string][]ClassifierResult{}, err
	}
	cur := newCurrent[ClassifierResult](convs)
	err = queryRows(ctx, r.Catalog.DB(), func(rows *sql.Rows) error {
		var conv, run string
		var c ClassifierResult
		if err := rows.Scan(&conv, &run, &c.ClassifierID, &c.Version, &c.Type, &c.Category, &c.Result, &c.Reasoning); err != nil {
			return err
		}
		cur.offer(conv, c.ClassifierID, run, c)
		return nil
	}, `SELECT conversation_id, run_id, classifier_id, classifier_version, classifier_type, category_name, result, reasoning
		FROM read_parquet(`+r.Catalog.LakeFileList(paths)+`, hive_partitioning = false)
		WHERE conversation_id BETWEEN ? AND ? AND conversation_id IN (SELECT unnest(?::VARCHAR[]))
		AND classifier_id IN (SELECT unnest(?::VARCHAR[]))`, lo, hi, ids(convs), classifierIDs)
	if err != nil {
		return nil, err
	}
	out := cur.byConversation()
	for _, list := range out {
		sort.Slice(list, func(i, j int) bool { return list[i].ClassifierID < list[j].ClassifierID })
	}
	return out, nil
}
