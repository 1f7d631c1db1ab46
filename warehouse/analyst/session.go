// Package analyst is the read-only SQL session of earshot sql: an
// in-memory DuckDB whose views (sql/views) read the lake's committed files
// and the export job's catalog snapshots. It never opens the catalog file,
// so it works beside a running server, and DuckDB may read only the lake
// directory.
package analyst

import (
	"context"
	"database/sql"
	"fmt"
	"io/fs"
	"path/filepath"
	"strings"

	_ "github.com/duckdb/duckdb-go/v2" // the database/sql driver "duckdb"

	"github.com/earshot/earshot/sql/views"
	"github.com/earshot/earshot/warehouse/lake"
	"github.com/earshot/earshot/warehouse/lakedb"
)

// Files are the files each view reads, by view name, as paths under the
// lake root.
type Files map[string][]string

// Open starts a session over the files under lakeRoot. A view without
// files answers with an error that says why (no snapshot yet, an empty
// lake) rather than with a wrong empty table.
func Open(ctx context.Context, lakeRoot string, files Files) (*sql.DB, error) {
	root, err := filepath.Abs(lakeRoot)
	if err != nil {
		return nil, err
	}
	db, err := sql.Open("duckdb", "")
	if err != nil {
		return nil, err
	}
	db.SetMaxOpenConns(1) // one in-memory database, one session
	for _, name := range views.Order {
		body, err := fs.ReadFile(views.FS, name+".sql")
		if err != nil {
			db.Close()
			return nil, err
		}
		stmt := currentRule.Replace(strings.Replace(string(body), "{{files}}", lakedb.FileList(root, files[name]), 1))
		if len(files[name]) == 0 {
			stmt = fmt.Sprintf("CREATE VIEW %s AS SELECT error(%s) AS missing", name, lakedb.SQLString(missingWhy(name)))
		}
		if _, err := db.ExecContext(ctx, stmt); err != nil {
			db.Close()
			return nil, fmt.Errorf("view %s: %w", name, err)
		}
	}
	// From here on DuckDB reads only inside the lake, and the session
	// cannot lift that.
	if _, err := db.ExecContext(ctx, `SET allowed_directories = [`+lakedb.SQLString(root)+`]; SET enable_external_access = false; SET lock_configuration = true`); err != nil {
		db.Close()
		return nil, err
	}
	return db, nil
}

func missingWhy(view string) string {
	if views.Snapshots[view] {
		return "no " + view + " snapshot yet: the export job writes them nightly (earshot jobs run export)"
	}
	return "the lake has no " + view + " yet: nothing has been processed (earshot ingest, or the ingest job)"
}

// currentRule puts the lake's current-row rule (warehouse/lake/current.go)
// into the views that name it.
var currentRule = strings.NewReplacer("{{conversation_run}}", lake.ConversationRunSQL,
	"{{classifier_rank}}", lake.ResultRankSQL("classifier_id"), "{{model_rank}}", lake.ResultRankSQL("model_id"))
