// Package lakedb is DuckDB over the lake: an in-memory database that reads
// the committed Parquet files under the lake's local directory (the bucket
// directory, or the local cache of a remote bucket). It holds no state of
// its own: what is committed, and which run of a conversation is current,
// come from the catalog and are passed in as file lists and values.
package lakedb

import (
	"context"
	"database/sql"
	"fmt"
	"path/filepath"
	"strings"
	"sync"

	_ "github.com/duckdb/duckdb-go/v2" // the database/sql driver "duckdb"

	"github.com/earshot/earshot/warehouse/lake"
)

// DB is DuckDB over the lake's files under one root directory.
type DB struct {
	db   *sql.DB
	root string
	// bucket, when root is the local cache of a remote bucket, is where
	// files not yet in the cache come from (other processes committed
	// them); present are the files known to be in the cache.
	bucket  lake.Getter
	present sync.Map
}

// FetchMissingFrom makes the engine fetch every file a query names that
// its root (the local cache of bucket) does not hold yet.
func (d *DB) FetchMissingFrom(bucket lake.Getter) { d.bucket = bucket }

// Open starts an in-memory DuckDB over the lake files under root.
func Open(ctx context.Context, root string) (*DB, error) {
	db, err := sql.Open("duckdb", "")
	if err != nil {
		return nil, fmt.Errorf("open the lake engine: %w", err)
	}
	// Lake files never change once written (a new version is a new file):
	// DuckDB may keep their Parquet footers instead of reading and parsing
	// them on every query. GLOBAL: every pooled connection.
	if _, err := db.ExecContext(ctx, `SET GLOBAL parquet_metadata_cache = true`); err != nil {
		db.Close()
		return nil, fmt.Errorf("open the lake engine: %w", err)
	}
	return &DB{db: db, root: root}, nil
}

// QueryContext runs a query over the lake.
func (d *DB) QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	return d.db.QueryContext(ctx, query, args...)
}

// QueryRowContext runs a query over the lake that returns one row.
func (d *DB) QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row {
	return d.db.QueryRowContext(ctx, query, args...)
}

// Root is the local directory of the lake's files.
func (d *DB) Root() string { return d.root }

// Close releases DuckDB.
func (d *DB) Close() error { return d.db.Close() }

// Files is the SQL list literal of lake files (manifest paths, never
// request input) for read_parquet: local paths under the root, quoted.
// On a cache, the files it lacks are fetched first.
func (d *DB) Files(ctx context.Context, paths []string) (string, error) {
	if d.bucket != nil {
		var missing []string
		for _, p := range paths {
			if _, ok := d.present.Load(p); !ok {
				missing = append(missing, p)
			}
		}
		if len(missing) > 0 {
			if _, err := lake.Fill(ctx, d.bucket, d.root, missing); err != nil {
				return "", fmt.Errorf("lake cache: %w", err)
			}
			for _, p := range missing {
				d.present.Store(p, struct{}{})
			}
		}
	}
	return FileList(d.root, paths), nil
}

// FileList is the SQL list literal of files under root, given by their
// /-separated paths relative to it.
func FileList(root string, paths []string) string {
	quoted := make([]string, len(paths))
	for i, p := range paths {
		quoted[i] = SQLString(filepath.Join(root, filepath.FromSlash(p)))
	}
	return "[" + strings.Join(quoted, ", ") + "]"
}

// SQLString quotes a string as a SQL literal.
func SQLString(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }

// quoteIdent quotes a name (a column's) for DuckDB.
func quoteIdent(s string) string { return `"` + strings.ReplaceAll(s, `"`, `""`) + `"` }

// JSONToParquet writes the rows of a JSON-lines file (one object a row)
// to a zstd Parquet file, each of columns read as the DuckDB type of the
// same place in types.
func (d *DB) JSONToParquet(ctx context.Context, rowsFile string, columns, types []string, out string) error {
	_, err := d.db.ExecContext(ctx, `COPY (SELECT * FROM `+readJSON(rowsFile, columns, types)+`)
		TO `+SQLString(out)+` (FORMAT parquet, COMPRESSION zstd)`)
	return err
}

// JSONToParquetByDate is JSONToParquet into files by the UTC day of the
// timestamp column dateColumn, in the lake's layout: under outDir, a
// folder date=YYYY-MM-DD for each day, the date in its name and not in
// the files. No rows, no files.
func (d *DB) JSONToParquetByDate(ctx context.Context, rowsFile string, columns, types []string, dateColumn, outDir string) error {
	_, err := d.db.ExecContext(ctx, `COPY (SELECT *, strftime(`+quoteIdent(dateColumn)+`, '%Y-%m-%d') AS date FROM `+readJSON(rowsFile, columns, types)+`)
		TO `+SQLString(outDir)+` (FORMAT parquet, COMPRESSION zstd, PARTITION_BY (date))`)
	return err
}

// readJSON is the table function reading a JSON-lines file's columns as
// their types.
func readJSON(rowsFile string, columns, types []string) string {
	specs := make([]string, len(columns))
	for i, c := range columns {
		specs[i] = SQLString(c) + ": " + SQLString(types[i])
	}
	return `read_json(` + SQLString(rowsFile) + `, format = 'newline_delimited', columns = {` + strings.Join(specs, ", ") + `})`
}
