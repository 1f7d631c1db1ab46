package results

import (
	"context"
	"database/sql"
)

// Direct runs a page's two lake queries straight on DuckDB, as the
// baseline the API is measured against: the page of conversations from
// the manifest-pruned conversations files, then the results of table
// (model_results or classifier_results) for them. No catalog check, no
// JSON, no HTTP. It returns the rows read.
func (r *Reader) Direct(ctx context.Context, q PageQuery, table string) (int, error) {
	files, err := r.conversationFiles(ctx, q)
	if err != nil || len(files) == 0 {
		return 0, err
	}
	convs, _, err := r.lakeConversations(ctx, q, files, q.AfterID, q.Limit+1)
	if err != nil || len(convs) == 0 {
		return 0, err
	}
	paths, lo, hi, err := r.resultPaths(ctx, q.OrgID, table, convs)
	if err != nil || len(paths) == 0 {
		return len(convs), err
	}
	n := len(convs)
	err = queryRows(ctx, r.Catalog.DB(), func(rows *sql.Rows) error {
		n++
		return nil
	}, `SELECT * FROM read_parquet(`+r.Catalog.LakeFileList(paths)+`, hive_partitioning = false)
		WHERE conversation_id BETWEEN ? AND ? AND conversation_id IN (SELECT unnest(?::VARCHAR[]))`, lo, hi, ids(convs))
	return n, err
}
