package results

import (
	"context"

	"github.com/earshot/earshot/warehouse/catalog"
	"github.com/earshot/earshot/warehouse/lake"
)

// figureConversations is the statement of the current rows of the
// processed conversations q may see that arrived in its window (its node
// filter and scope), with conversation_id, run_id and the given column
// expressions, and its arguments. Dashboards count and group it. ok is
// false when the window has no conversations file.
func (r *Reader) figureConversations(ctx context.Context, q PageQuery, columns string) (statement string, args []any, ok bool, err error) {
	files, err := r.Manifest.ManifestFiles(ctx, catalog.ManifestQuery{OrgID: q.OrgID, Table: "conversations", From: q.From, To: q.To})
	if err != nil || len(files) == 0 {
		return "", nil, false, err
	}
	list, err := r.Lake.Files(ctx, catalog.Paths(files))
	if err != nil {
		return "", nil, false, err
	}
	where := `true`
	args = []any{q.From.UTC(), q.To.UTC()}
	if q.NodeIDs != nil {
		where += ` AND list_contains(?, hierarchy_node_id)`
		args = append(args, q.NodeIDs)
	}
	scope, scopeArgs := q.scopeSQL()
	return currentConversationsSQL(list, columns, arrivalWindow, where+scope), append(args, scopeArgs...), true, nil
}

// arrivalWindow is the condition of an arrival window on lake rows, its
// arguments the window's start and end.
const arrivalWindow = `arrived_on BETWEEN ? AND ?`

// figureResults is the statement of the current results of the given
// classifiers for the conversations of conv (a figureConversations
// statement named conv in a WITH), with r's columns and conv's c.
func (r *Reader) figureResults(ctx context.Context, q PageQuery, columns string) (statement string, ok bool, err error) {
	files, err := r.Manifest.ManifestFiles(ctx, catalog.ManifestQuery{OrgID: q.OrgID, Table: "classifier_results", From: q.From, To: q.To})
	if err != nil || len(files) == 0 {
		return "", false, err
	}
	list, err := r.Lake.Files(ctx, catalog.Paths(files))
	if err != nil {
		return "", false, err
	}
	return currentResultsSQL(list, columns, ` AND list_contains(?, r.classifier_id)`), true, nil
}

// currentConversationsSQL selects each conversation's current row among
// a file list's rows (lake.ConversationRunSQL), then those meeting a
// condition ("" for all), with conversation_id, run_id and the given
// columns. The condition is applied to the current rows, so a newer run's
// row that fails it hides an older one that would meet it. arrival ("" for
// none) is a condition on arrived_on alone, applied before the rule: every
// row of an upload carries the upload's arrival, in every run, so it keeps
// or drops each of the rule's groups whole, and DuckDB reads only the row
// groups of the files that can meet it. Its arguments come first.
func currentConversationsSQL(list, columns, arrival, where string) string {
	if arrival == "" {
		arrival = "true"
	}
	if where == "" {
		where = "true"
	}
	return `SELECT conversation_id, run_id, ` + columns + ` FROM (SELECT * FROM read_parquet(` + list + `, hive_partitioning = false)
		WHERE ` + arrival + ` QUALIFY run_id = ` + lake.ConversationRunSQL + `) WHERE ` + where
}

// currentResultsSQL selects the current results (r) of the
// conversations of conv (a currentConversationsSQL statement named conv in
// a WITH, c) among a file list's rows, with the given columns and an
// extra condition ("" or " AND …"): for each classifier the newest run
// not older than the conversation's (lake.ResultRankSQL).
func currentResultsSQL(list, columns, and string) string {
	return `SELECT ` + columns + ` FROM read_parquet(` + list + `, hive_partitioning = false) r
			JOIN conv c USING (conversation_id)
			WHERE r.run_id >= c.run_id` + and + `
			QUALIFY ` + lake.ResultRankSQL("classifier_id") + ` = 1`
}
