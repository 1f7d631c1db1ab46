package results

import (
	"context"
	"database/sql"
	"time"
)

// ModelResult is a classifier's current result for a conversation, as the
// model_results table records it.
type ModelResult struct {
	ModelID    string
	Version    int32
	Result     *bool
	TextResult *string
	EventTime  time.Time
}

// ModelResults reads the current results of the models for conversations.
func (r *Reader) ModelResults(ctx context.Context, orgID string, convs []Conversation, modelIDs []string) (map[string][]ModelResult, error) {
	if len(convs) == 0 || len(modelIDs) == 0 {
		return map[string][]ModelResult{}, nil
	}
	paths, lo, hi, err := r.resultPaths(ctx, orgID, "model_results", convs)
	if err != nil || len(paths) == 0 {
		return map[string][]ModelResult{}, err
	}
	cur := newCurrent[ModelResult](convs)
	// The id range lets DuckDB skip row groups of the sorted files; the
	// semi-join keeps the page's conversations (the range also holds
	// others, e.g. of other hierarchy nodes).
	err = queryRows(ctx, r.Catalog.DB(), func(rows *sql.Rows) error {
		var conv, run string
		var m ModelResult
		if err := rows.Scan(&conv, &run, &m.ModelID, &m.Version, &m.Result, &m.TextResult, &m.EventTime); err != nil {
			return err
		}
		m.EventTime = m.EventTime.UTC()
		cur.offer(conv, m.ModelID, run, m)
		return nil
	}, `SELECT conversation_id, run_id, model_id, model_version, result, text_result, event_time
		FROM read_parquet(`+r.Catalog.LakeFileList(paths)+`, hive_partitioning = false)
		WHERE conversation_id BETWEEN ? AND ? AND conversation_id IN (SELECT unnest(?::VARCHAR[]))
		AND model_id IN (SELECT unnest(?::VARCHAR[]))`, lo, hi, ids(convs), modelIDs)
	if err != nil {
		return nil, err
	}
	return cur.byConversation(), nil
}
