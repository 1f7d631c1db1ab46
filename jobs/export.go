package jobs

import (
	"bytes"
	"context"
	"database/sql"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"strings"

	"github.com/earshot/earshot/sql/export"
	"github.com/earshot/earshot/warehouse/blob"
	"github.com/earshot/earshot/warehouse/catalog"
	"github.com/earshot/earshot/warehouse/lake"
)

// ExportPrefix is where the snapshots live in the bucket, beside the lake
// tables: lake/export/TABLE/org=ORG/snapshot.parquet.
const ExportPrefix = lake.Prefix + "export/"

// ExportPath is the key of an organization's snapshot of a table.
func ExportPath(table, orgID string) string {
	return ExportPrefix + table + "/org=" + orgID + "/snapshot.parquet"
}

// Export is the nightly export job: it snapshots each organization's
// users, agents, hierarchy, classifiers and the organization itself into
// the lake, so that analysts join them to the lake tables from any engine
// (earshot sql, BigQuery, Trino) without the catalog. A snapshot replaces
// the previous one in one write.
type Export struct {
	Catalog *catalog.Catalog
	Bucket  blob.Bucket
	Cache   string // the local lake cache to write through to (a gs:// bucket), or ""
	Log     *slog.Logger
}

// Run writes every organization's snapshots.
func (j *Export) Run(ctx context.Context, _ catalog.JobRun) (map[string]int64, error) {
	queries, err := exportQueries()
	if err != nil {
		return nil, err
	}
	orgs, err := j.Catalog.Organizations(ctx)
	if err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp("", "earshot-export-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	counts := map[string]int64{"organizations": 0, "files": 0}
	for _, org := range orgs {
		for table, query := range queries {
			rows, err := j.snapshot(ctx, dir, table, query, org.ID)
			if err != nil {
				return counts, fmt.Errorf("export %s of %s: %w", table, org.Name, err)
			}
			counts[table+"_rows"] += rows
			counts["files"]++
		}
		counts["organizations"]++
	}
	j.Log.Info("exported catalog snapshots", "organizations", counts["organizations"], "files", counts["files"])
	return counts, nil
}

// snapshot writes one table of one organization: DuckDB copies the query's
// rows to a local Parquet file, which is then stored in the bucket.
func (j *Export) snapshot(ctx context.Context, dir, table, query, orgID string) (int64, error) {
	local := filepath.Join(dir, table+".parquet")
	res, err := j.Catalog.DB().ExecContext(ctx, `COPY (`+query+`) TO `+catalog.SQLString(local)+` (FORMAT parquet, COMPRESSION zstd)`, sql.Named("org", orgID))
	if err != nil {
		return 0, err
	}
	rows, _ := res.RowsAffected()
	data, err := os.ReadFile(local)
	if err != nil {
		return 0, err
	}
	key := ExportPath(table, orgID)
	if _, err := j.Bucket.Put(ctx, key, bytes.NewReader(data), blob.PutOptions{}); err != nil {
		return 0, err
	}
	if j.Cache != "" {
		if err := lake.WriteCache(j.Cache, key, data); err != nil {
			return 0, err
		}
	}
	return rows, nil
}

// exportQueries are the snapshot queries by table name, comments removed
// (a trailing comment would swallow the COPY's closing parenthesis).
func exportQueries() (map[string]string, error) {
	names, err := fs.Glob(export.FS, "*.sql")
	if err != nil {
		return nil, err
	}
	out := map[string]string{}
	for _, name := range names {
		body, err := fs.ReadFile(export.FS, name)
		if err != nil {
			return nil, err
		}
		var lines []string
		for _, line := range strings.Split(string(body), "\n") {
			if !strings.HasPrefix(strings.TrimSpace(line), "--") {
				lines = append(lines, line)
			}
		}
		out[strings.TrimSuffix(name, ".sql")] = strings.Join(lines, "\n")
	}
	return out, nil
}
