package results

import (
	"context"
	"time"

	"github.com/earshot/earshot/warehouse/catalog"
)

// Count is how many processed conversations a page query's walk would
// list, from its first page (X-Total-Records). With classifierIDs, only
// those with a result of one of them count. It counts the lake's rows,
// one per conversation however many runs wrote it.
func (r *Reader) Count(ctx context.Context, q PageQuery, classifierIDs []string) (int64, error) {
	q.AfterID = ""
	files, err := r.conversationFiles(ctx, q)
	if err != nil || len(files) == 0 {
		return 0, err
	}
	date := "arrived_on"
	if q.ByInteraction {
		date = "coalesce(interaction_date, arrived_on)"
	}
	query := `SELECT count(DISTINCT conversation_id) FROM read_parquet(` + r.Catalog.LakeFileList(catalog.Paths(files)) +
		`, hive_partitioning = false) WHERE ` + date + ` BETWEEN ? AND ?`
	args := []any{q.From.UTC(), q.To.UTC()}
	if q.NodeIDs != nil {
		query += ` AND list_contains(?, hierarchy_node_id)`
		args = append(args, q.NodeIDs)
	}
	if classifierIDs != nil {
		var days []time.Time
		for _, f := range files {
			days = append(days, f.Date)
		}
		resultFiles, err := r.Catalog.ManifestFiles(ctx, catalog.ManifestQuery{OrgID: q.OrgID, Table: "classifier_results", Dates: days})
		if err != nil || len(resultFiles) == 0 {
			return 0, err
		}
		query += ` AND conversation_id IN (SELECT conversation_id FROM read_parquet(` + r.Catalog.LakeFileList(catalog.Paths(resultFiles)) +
			`, hive_partitioning = false) WHERE classifier_id IN (SELECT unnest(?::VARCHAR[])))`
		args = append(args, classifierIDs)
	}
	var n int64
	err = r.Catalog.DB().QueryRowContext(ctx, query, args...).Scan(&n)
	return n, err
}
