package catalog

import (
	"context"
	"database/sql"
	"math/bits"
	"slices"
	"strconv"
	"strings"
	"time"
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
		"max_interaction", "run_id", "created_on", "node_counts", "complete_classifiers", "min_arrival", "max_arrival",
	}
	failureColumns        = []string{"id", "org_id", "interaction_id", "message", "created_on"}
	reviewColumns         = []string{"id", "org_id", "conversation_id", "event_type", "reviewer", "event_time", "model_results"}
	deliveryInsertColumns = []string{"id", "org_id", "conversation_id", "result_key", "event_type", "event_time", "status",
		"attempts", "next_attempt_on", "created_on"}
)

// bulkInsert inserts rows (values in column order) inside the
// transaction. SQLite runs statements in-process, and a row's cost is
// mostly the driver binding its values one by one: the values every row
// has in common (an archive's chats share their upload, arrival, status
// and run, and most of their empty fields) are bound once a statement
// (insertShared). On PostgreSQL every statement is a round trip to the
// server: the rows go in one copy (insertMany).
func (h handle) bulkInsert(ctx context.Context, tx *sql.Tx, table string, cols []string, rows [][]any) error {
	if len(rows) == 0 {
		return nil
	}
	if h.postgres {
		return insertMany(ctx, tx, table, cols, rows)
	}
	if shared, own, rest := splitShared(cols, rows); len(shared.Columns) > 0 {
		return insertShared(ctx, tx, table, shared, own, rest)
	}
	return insertEach(ctx, tx, table, cols, rows)
}

// insertEach inserts the rows on SQLite one step of a prepared statement
// each.
func insertEach(ctx context.Context, tx *sql.Tx, table string, cols []string, rows [][]any) error {
	stmt, err := prepareInsert(ctx, tx, table, cols)
	if err != nil {
		return err
	}
	defer stmt.Close()
	return eachRow(ctx, len(rows), func(rowCtx context.Context, i int) error {
		_, err := stmt.ExecContext(rowCtx, rows[i]...)
		return err
	})
}

// sharedColumns is what every row of a bulk insert has in common: columns and
// their values, given once.
type sharedColumns struct {
	Columns []string
	Values  []any
}

// insertShared inserts rows (values of cols, in order) that share the
// values of shared's columns on SQLite: the shared values are bound once
// a statement, and the rows go many to it.
func insertShared(ctx context.Context, tx *sql.Tx, table string, shared sharedColumns, cols []string, rows [][]any) error {
	var picked []string
	for i := range cols {
		picked = append(picked, "column"+strconv.Itoa(i+1)) // SQLite's names for the columns of VALUES
	}
	head := `INSERT INTO ` + table + ` (` + strings.Join(append(append([]string{}, shared.Columns...), cols...), ", ") + `) SELECT ` +
		strings.Repeat("?, ", len(shared.Columns)) + strings.Join(picked, ", ") + ` FROM (VALUES `
	row := "(" + strings.Repeat("?, ", len(cols)-1) + "?)"
	statement := func(n int) string { return head + strings.Repeat(row+", ", n-1) + row + ")" }
	for len(rows) > 0 {
		chunk := rows[:chunkOf(len(rows), sharedChunk)]
		rows = rows[len(chunk):]
		args := append(make([]any, 0, len(shared.Values)+len(chunk)*len(cols)), shared.Values...)
		for _, r := range chunk {
			args = append(args, r...)
		}
		if _, err := tx.ExecContext(ctx, statement(len(chunk)), args...); err != nil {
			return err
		}
	}
	return nil
}

// chunkOf is how many of n rows left a multi-row statement takes next:
// most (a power of two), or the largest power of two that n holds. A
// table's inserts then come in a few statements, each compiled once a
// connection and kept by the driver (sqliteDSN, and pgx's statement
// cache), not one of any size for each insert's last rows.
func chunkOf(n, most int) int {
	if n >= most {
		return most
	}
	return 1 << (bits.Len(uint(n)) - 1)
}

// splitShared splits rows into the columns whose value is the same in
// every row (shared) and the others (own), with each row's values of
// those (rest); no shared columns when there are none, or when every
// column is (a single row).
func splitShared(cols []string, rows [][]any) (shared sharedColumns, own []string, rest [][]any) {
	var kept []int // the own columns' places
	for j, col := range cols {
		if !slices.ContainsFunc(rows[1:], func(r []any) bool { return !sameValue(r[j], rows[0][j]) }) {
			shared.Columns = append(shared.Columns, col)
			shared.Values = append(shared.Values, rows[0][j])
		} else {
			own = append(own, col)
			kept = append(kept, j)
		}
	}
	if len(shared.Columns) == 0 || len(own) == 0 {
		return sharedColumns{}, cols, rows
	}
	rest = make([][]any, len(rows))
	values := make([]any, len(rows)*len(kept)) // one allocation for every row's
	for i, r := range rows {
		row := values[i*len(kept) : (i+1)*len(kept) : (i+1)*len(kept)]
		for k, j := range kept {
			row[k] = r[j]
		}
		rest[i] = row
	}
	return shared, own, rest
}

// sameValue reports whether two values of a column bind alike: of the
// same type and equal, pointers by what they point to (nil alike). Values
// of other types are never alike, which costs only their binding.
func sameValue(a, b any) bool {
	switch x := a.(type) {
	case nil:
		return b == nil
	case string:
		return same(x, b)
	case int:
		return same(x, b)
	case int64:
		return same(x, b)
	case bool:
		return same(x, b)
	case time.Time: // == is also the same location: the same text bound
		return same(x, b)
	case *string:
		return samePointed(x, b)
	case *int:
		return samePointed(x, b)
	case *int64:
		return samePointed(x, b)
	case *time.Time:
		return samePointed(x, b)
	}
	return false
}

func same[T comparable](x T, b any) bool {
	y, ok := b.(T)
	return ok && x == y
}

func samePointed[T comparable](x *T, b any) bool {
	y, ok := b.(*T)
	if !ok || x == nil || y == nil {
		return ok && x == y
	}
	return *x == *y
}

// sharedChunk is how many rows insertShared gives SQLite a statement:
// enough that a statement's own cost is small beside its rows', few enough
// that any of the catalog's tables stays within SQLite's limit of
// parameters a statement.
const sharedChunk = 256

// insertMany inserts the rows on PostgreSQL by the copy protocol, all in
// one statement (copyIn).
func insertMany(ctx context.Context, tx *sql.Tx, table string, cols []string, rows [][]any) error {
	_, err := tx.ExecContext(ctx, "COPY "+table+" FROM STDIN", copyIn{Table: table, Columns: cols, Rows: rows})
	return err
}

// insertChunks inserts the rows up to per (a power of two) to a
// multi-row INSERT statement (chunkOf), each ending with suffix, and
// returns how many rows the statements inserted.
func insertChunks(ctx context.Context, tx *sql.Tx, table string, cols []string, rows [][]any, per int, suffix string) (int64, error) {
	row := "(" + strings.Repeat("?, ", len(cols)-1) + "?)"
	head := `INSERT INTO ` + table + ` (` + strings.Join(cols, ", ") + `) VALUES `
	var inserted int64
	for len(rows) > 0 {
		chunk := rows[:chunkOf(len(rows), per)]
		rows = rows[len(chunk):]
		args := make([]any, 0, len(chunk)*len(cols))
		for _, r := range chunk {
			args = append(args, r...)
		}
		res, err := tx.ExecContext(ctx, head+strings.Repeat(row+", ", len(chunk)-1)+row+suffix, args...)
		if err != nil {
			return inserted, err
		}
		n, err := res.RowsAffected()
		if err != nil {
			return inserted, err
		}
		inserted += n
	}
	return inserted, nil
}

// prepareInsert is the statement that inserts one row of the columns.
func prepareInsert(ctx context.Context, tx *sql.Tx, table string, cols []string) (*sql.Stmt, error) {
	marks := strings.Repeat("?, ", len(cols)-1) + "?"
	return tx.PrepareContext(ctx, `INSERT INTO `+table+` (`+strings.Join(cols, ", ")+`) VALUES (`+marks+`)`)
}

// insertNew inserts those of the rows whose keys are not taken yet (ON
// CONFLICT DO NOTHING), newChunk rows to a statement on either engine
// (a statement a row is a round trip a row on PostgreSQL), and returns
// how many it inserted.
func insertNew(ctx context.Context, tx *sql.Tx, table string, cols []string, rows [][]any) (int64, error) {
	return insertChunks(ctx, tx, table, cols, rows, newChunk, " ON CONFLICT DO NOTHING")
}

// newChunk is how many rows insertNew gives a statement at most: within
// SQLite's limit of parameters as well as PostgreSQL's for rows of a dozen
// columns.
const newChunk = 512
