package catalog

import (
	"bufio"
	"context"
	"database/sql"
	"os"
	"strings"

	json "github.com/goccy/go-json"
)

// column is a column name and its DuckDB type, for bulk loads.
type column struct{ name, sqlType string }

var (
	interactionInsertColumns = []column{
		{"id", "VARCHAR"}, {"org_id", "VARCHAR"}, {"upload_id", "VARCHAR"}, {"media_type", "VARCHAR"}, {"status", "VARCHAR"},
		{"file_name", "VARCHAR"}, {"orig_file_name", "VARCHAR"}, {"staged_key", "VARCHAR"}, {"file_size_bytes", "BIGINT"},
		{"sha256", "VARCHAR"}, {"arrived_on", "TIMESTAMP"}, {"interaction_date", "TIMESTAMP"}, {"hierarchy_node_id", "VARCHAR"},
		{"agent_id", "VARCHAR"}, {"agent_code", "VARCHAR"}, {"agent_first_name", "VARCHAR"}, {"agent_last_name", "VARCHAR"},
		{"customer_name", "VARCHAR"}, {"phone", "VARCHAR"}, {"email", "VARCHAR"}, {"call_direction", "VARCHAR"},
		{"client_call_id", "VARCHAR"}, {"locale_id", "INTEGER"}, {"extended_metadata", "VARCHAR"},
		{"call_duration_millis", "BIGINT"}, {"chat_message_count", "INTEGER"}, {"source", "VARCHAR"},
		{"modified_on", "TIMESTAMP"}, {"lake_run_id", "VARCHAR"},
	}
	lakeFileColumns = []column{
		{"path", "VARCHAR"}, {"table_name", "VARCHAR"}, {"org_id", "VARCHAR"}, {"part_date", "DATE"}, {"row_count", "BIGINT"},
		{"byte_count", "BIGINT"}, {"min_id", "VARCHAR"}, {"max_id", "VARCHAR"}, {"min_interaction", "TIMESTAMP"},
		{"max_interaction", "TIMESTAMP"}, {"run_id", "VARCHAR"}, {"created_on", "TIMESTAMP"}, {"node_counts", "VARCHAR"},
		{"complete_classifiers", "VARCHAR"},
	}
	failureColumns = []column{{"id", "VARCHAR"}, {"org_id", "VARCHAR"}, {"interaction_id", "VARCHAR"}, {"message", "VARCHAR"}, {"created_on", "TIMESTAMP"}}
)

// bulkInsert loads rows (values in column order) inside the transaction
// through a newline-delimited JSON file that DuckDB reads in one statement:
// 12,000 rows take tens of milliseconds, where binding them as parameters
// of multi-row INSERTs took seconds.
func bulkInsert(ctx context.Context, tx *sql.Tx, table string, cols []column, rows [][]any) error {
	if len(rows) == 0 {
		return nil
	}
	f, err := os.CreateTemp("", "earshot-bulk-*.jsonl")
	if err != nil {
		return err
	}
	defer os.Remove(f.Name())
	w := bufio.NewWriterSize(f, 1<<20)
	enc := json.NewEncoder(w)
	obj := make(map[string]any, len(cols))
	for _, r := range rows {
		for i, c := range cols {
			obj[c.name] = r[i]
		}
		if err := enc.Encode(obj); err != nil {
			f.Close()
			return err
		}
	}
	if err := w.Flush(); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	names := make([]string, len(cols))
	specs := make([]string, len(cols))
	for i, c := range cols {
		names[i] = c.name
		specs[i] = c.name + ": '" + c.sqlType + "'"
	}
	// The file name is ours (a temporary file), quoted as a literal: table
	// functions take no bound parameters.
	_, err = tx.ExecContext(ctx, `INSERT INTO `+table+` (`+strings.Join(names, ", ")+`) SELECT `+strings.Join(names, ", ")+
		` FROM read_json(`+SQLString(f.Name())+`, format = 'newline_delimited', columns = {`+strings.Join(specs, ", ")+`})`)
	return err
}
