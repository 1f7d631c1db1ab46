// Package legacycatalog moves a data directory from the DuckDB catalog of
// earlier releases (catalog.duckdb) to the catalog of this one: every
// table is copied in one transaction, the row counts are checked, and the
// old file is renamed (catalog.duckdb.migrated), never deleted. It is the
// only package besides the lake's that opens DuckDB, and only to read.
package legacycatalog

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"strings"

	_ "github.com/duckdb/duckdb-go/v2" // the database/sql driver "duckdb"

	"github.com/earshot/earshot/warehouse/catalog"
)

// SchemaVersion is the last migration of the DuckDB catalog: the schema
// this package reads.
const SchemaVersion = 10

// MigratedSuffix is added to the old file's name once it is copied.
const MigratedSuffix = ".migrated"

// tables are the DuckDB catalog's tables in copy order (schema_migrations
// is the new catalog's own).
var tables = []string{
	"organizations", "api_clients", "roles", "users", "hierarchy_nodes", "hierarchy_codes", "agents",
	"interactions", "process_failures", "lake_files", "job_runs", "org_audio_settings", "classifiers",
	"classifier_versions", "org_privacy_settings", "result_reviews",
}

// Source is a DuckDB catalog file opened read-only.
type Source struct {
	db *sql.DB
}

// Open opens a DuckDB catalog read-only and checks that its schema is the
// one this release copies.
func Open(ctx context.Context, path string) (*Source, error) {
	db, err := sql.Open("duckdb", path+"?access_mode=read_only")
	if err != nil {
		return nil, err
	}
	var version sql.NullInt64
	if err := db.QueryRowContext(ctx, `SELECT max(version) FROM schema_migrations`).Scan(&version); err != nil {
		db.Close()
		return nil, fmt.Errorf("read the DuckDB catalog %s: %w", path, err)
	}
	if version.Int64 != SchemaVersion {
		db.Close()
		return nil, fmt.Errorf("the DuckDB catalog %s is at schema version %d; this release copies version %d (start the release that wrote it once more, then this one)",
			path, version.Int64, SchemaVersion)
	}
	return &Source{db: db}, nil
}

// Close releases the file.
func (s *Source) Close() error { return s.db.Close() }

// Tables are the tables to copy, in copy order.
func (s *Source) Tables() []string { return tables }

// Rows reads every row of a table. Values come as the catalog stores
// them: dates as YYYY-MM-DD, lists as JSON arrays.
func (s *Source) Rows(ctx context.Context, table string, fn func(columns []string, row []any) error) (int64, error) {
	columns, selects, err := s.columns(ctx, table)
	if err != nil {
		return 0, err
	}
	var total int64
	if err := s.db.QueryRowContext(ctx, `SELECT count(*) FROM `+table).Scan(&total); err != nil {
		return 0, err
	}
	rows, err := s.db.QueryContext(ctx, `SELECT `+strings.Join(selects, ", ")+` FROM `+table)
	if err != nil {
		return 0, err
	}
	return total, catalog.EachRow(rows, columns, fn)
}

// columns are a table's column names and the expressions that read each
// as the catalog stores it.
func (s *Source) columns(ctx context.Context, table string) (names, selects []string, err error) {
	rows, err := s.db.QueryContext(ctx, `SELECT column_name, data_type FROM information_schema.columns
		WHERE table_schema = 'main' AND table_name = ? ORDER BY ordinal_position`, table)
	if err != nil {
		return nil, nil, err
	}
	defer rows.Close()
	for rows.Next() {
		var name, typ string
		if err := rows.Scan(&name, &typ); err != nil {
			return nil, nil, err
		}
		expr := `"` + name + `"`
		switch {
		case typ == "DATE":
			expr = `strftime(` + expr + `, '%Y-%m-%d')`
		case strings.HasSuffix(typ, "[]"):
			expr = `CAST(to_json(` + expr + `) AS VARCHAR)`
		}
		names, selects = append(names, name), append(selects, expr)
	}
	if len(names) == 0 && rows.Err() == nil {
		return nil, nil, fmt.Errorf("the DuckDB catalog has no table %s", table)
	}
	return names, selects, rows.Err()
}

// Migrate copies the DuckDB catalog at legacyPath into the SQLite catalog
// at newPath, which must not hold data yet, and renames the old file. When
// the copy fails the new catalog's files are removed, so that the next
// start tries again, and the old file stays where it is.
func Migrate(ctx context.Context, legacyPath, newPath string) (map[string]int64, error) {
	src, err := Open(ctx, legacyPath)
	if err != nil {
		return nil, err
	}
	defer src.Close()
	cat, err := catalog.Open(ctx, catalog.SchemePrefix+newPath)
	if err != nil {
		return nil, err
	}
	copied, err := cat.CopyFrom(ctx, src)
	if cerr := cat.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return nil, errors.Join(fmt.Errorf("copy the DuckDB catalog %s: %w", legacyPath, err), removeCatalog(newPath))
	}
	if err := src.Close(); err != nil {
		return nil, err
	}
	if err := os.Rename(legacyPath, legacyPath+MigratedSuffix); err != nil {
		return nil, fmt.Errorf("the catalog was copied, but %s could not be renamed: %w", legacyPath, err)
	}
	return copied, nil
}

// removeCatalog removes a SQLite catalog's file and its journals.
func removeCatalog(path string) error {
	var errs []error
	for _, p := range []string{path, path + "-wal", path + "-shm"} {
		if err := os.Remove(p); err != nil && !errors.Is(err, os.ErrNotExist) {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}
