package catalog

import (
	"context"
	"database/sql"
	"strings"
)

// Columns of the tables that batches insert many rows into, in the order
// of the rows' values.
var (
	interactionInsertColumns = []string{
		"id", "org_id", "upload_id", "media_type", "status", "file_name", "orig_file_name", "staged_key", "file_size_bytes",
		"sha256", "arrived_on", "interaction_date", "hierarchy_node_id", "agent_id", "agent_code", "agent_first_name",
		"agent_last_name", "customer_name", "phone", "email", "call_direction", "client_call_id", "locale_id",
		"extended_metadata", "call_duration_millis", "chat_message_count", "source", "modified_on", "lake_run_id", "public_id",
	}
	lakeFileColumns = []string{
		"path", "table_name", "org_id", "part_date", "row_count", "byte_count", "min_id", "max_id", "min_interaction",
		"max_interaction", "run_id", "created_on", "node_counts", "complete_classifiers",
	}
	failureColumns = []string{"id", "org_id", "interaction_id", "message", "created_on"}
	reviewColumns  = []string{"id", "org_id", "conversation_id", "event_type", "reviewer", "event_time", "model_results"}
)

// bulkInsert inserts rows (values in column order) inside the transaction
// through one prepared statement: SQLite runs it in-process, so a row
// costs one step of the statement and no round trip.
func bulkInsert(ctx context.Context, tx *sql.Tx, table string, cols []string, rows [][]any) error {
	if len(rows) == 0 {
		return nil
	}
	stmt, err := prepareInsert(ctx, tx, table, cols)
	if err != nil {
		return err
	}
	defer stmt.Close()
	for _, r := range rows {
		if _, err := stmt.ExecContext(ctx, r...); err != nil {
			return err
		}
	}
	return nil
}

// prepareInsert is the statement that inserts one row of the columns.
func prepareInsert(ctx context.Context, tx *sql.Tx, table string, cols []string) (*sql.Stmt, error) {
	marks := strings.Repeat("?, ", len(cols)-1) + "?"
	return tx.PrepareContext(ctx, `INSERT INTO `+table+` (`+strings.Join(cols, ", ")+`) VALUES (`+marks+`)`)
}
