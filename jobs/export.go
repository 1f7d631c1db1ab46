package jobs

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"time"

	json "github.com/goccy/go-json"

	"github.com/earshot/earshot/sql/export"
	"github.com/earshot/earshot/warehouse/blob"
	"github.com/earshot/earshot/warehouse/catalog"
	"github.com/earshot/earshot/warehouse/lake"
)

// ExportPrefix is where the snapshots live in the bucket, beside the lake
// tables: lake/export/TABLE/org=ORG/snapshot.parquet, or for a table
// snapshotted by day (ExportByDate), a file or more in each
// lake/export/TABLE/org=ORG/date=YYYY-MM-DD/.
const ExportPrefix = lake.Prefix + "export/"

// ExportDir is the folder of an organization's snapshot of a table.
func ExportDir(table, orgID string) string {
	return ExportPrefix + table + "/org=" + orgID + "/"
}

// ExportPath is the key of an organization's snapshot of a table that is
// one file.
func ExportPath(table, orgID string) string {
	return ExportDir(table, orgID) + "snapshot.parquet"
}

// ExportByDate are the snapshots written as the lake's tables are, a
// folder per day, by the day of a timestamp column, so that an engine
// reading some days reads only their files. The others are small: one
// file an organization.
var ExportByDate = map[string]string{"evaluation_answers": "assigned_on"}

// OrgLister lists every organization (catalog.OrgStore).
type OrgLister interface {
	Organizations(ctx context.Context) ([]catalog.Organization, error)
}

// Snapshotter runs an export query over the catalog, row by row
// (catalog.Catalog).
type Snapshotter interface {
	Snapshot(ctx context.Context, query, orgID string, fn func(columns []string, values []any) error) ([]string, int64, error)
}

// Export is the nightly export job: it snapshots each organization's
// users, agents, hierarchy, classifiers and the organization itself into
// the lake, so that analysts join them to the lake tables from any engine
// (earshot sql, BigQuery, Trino) without the catalog. A snapshot of one
// file replaces the previous one in one write; one by day replaces each
// day's files, then removes those of days it no longer has.
type Export struct {
	Orgs      OrgLister
	Snapshots Snapshotter
	// Auto, when set, adds the Auto evaluations' answers to the
	// evaluation_answers snapshot.
	Auto    AutoEvaluations
	Parquet ParquetWriter
	Bucket  blob.Bucket
	Cache   string // the local lake cache to write through to (a gs:// bucket), or ""
	Log     *slog.Logger
}

// AutoEvaluations reads an organization's Auto evaluations with their
// answers as people's are kept, and their forms' names (qa.AutoScorer).
type AutoEvaluations interface {
	EachAutoEvaluation(ctx context.Context, orgID string, fn func(e catalog.Evaluation, formName string) error) error
}

// ParquetWriter writes rows given as JSON lines to a Parquet file, or to
// a folder of them by day (lakedb.DB).
type ParquetWriter interface {
	JSONToParquet(ctx context.Context, rowsFile string, columns, types []string, out string) error
	JSONToParquetByDate(ctx context.Context, rowsFile string, columns, types []string, dateColumn, outDir string) error
}

// Run writes every organization's snapshots.
func (j *Export) Run(ctx context.Context, _ catalog.JobRun) (map[string]int64, error) {
	queries, err := exportQueries()
	if err != nil {
		return nil, err
	}
	orgs, err := j.Orgs.Organizations(ctx)
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
			rows, files, err := j.snapshot(ctx, dir, table, query, org.ID)
			if err != nil {
				return counts, fmt.Errorf("export %s of %s: %w", table, org.Name, err)
			}
			counts[table+"_rows"] += rows
			counts["files"] += files
		}
		counts["organizations"]++
	}
	j.Log.Info("exported catalog snapshots", "organizations", counts["organizations"], "files", counts["files"])
	return counts, nil
}

// snapshot writes one table of one organization: the catalog's rows go
// to a local JSON-lines file, which DuckDB copies, typed, to local Parquet
// files, which are then stored in the bucket; it returns the rows and the
// files written.
func (j *Export) snapshot(ctx context.Context, dir, table, query, orgID string) (rows, files int64, err error) {
	rowsFile := filepath.Join(dir, table+".jsonl")
	columns, rows, err := j.writeRows(ctx, rowsFile, query, orgID)
	if err != nil {
		return 0, 0, err
	}
	types := make([]string, len(columns))
	for i, c := range columns {
		types[i] = snapshotType(c)
	}
	dateColumn, byDate := ExportByDate[table]
	if byDate {
		files, err := j.storeByDay(ctx, filepath.Join(dir, table+"-"+orgID), rowsFile, columns, types, table, dateColumn, orgID)
		return rows, files, err
	}
	local := filepath.Join(dir, table+".parquet")
	if err := j.Parquet.JSONToParquet(ctx, rowsFile, columns, types, local); err != nil {
		return 0, 0, err
	}
	return rows, 1, j.store(ctx, local, ExportPath(table, orgID))
}

// storeByDay writes an organization's rows of a table snapshotted by day
// to a folder per day of dateColumn (local first, then the bucket), each
// day's files replacing that day's, then removes the files of the days
// left without rows (and of a snapshot from before the days). It returns
// how many files it wrote.
func (j *Export) storeByDay(ctx context.Context, local, rowsFile string, columns, types []string, table, dateColumn, orgID string) (int64, error) {
	if err := j.Parquet.JSONToParquetByDate(ctx, rowsFile, columns, types, dateColumn, local); err != nil {
		return 0, err
	}
	written := map[string]bool{}
	err := filepath.WalkDir(local, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(local, path)
		key := ExportDir(table, orgID) + filepath.ToSlash(rel)
		written[key] = true
		return j.store(ctx, path, key)
	})
	if err != nil && !errors.Is(err, fs.ErrNotExist) { // no rows, no folder
		return 0, err
	}
	if len(written) == 0 {
		// No rows: an empty file on the export's day keeps the table's
		// columns readable (an engine finds no table in no files).
		empty := local + ".parquet"
		key := ExportDir(table, orgID) + "date=" + time.Now().UTC().Format(time.DateOnly) + "/snapshot.parquet"
		if err := j.Parquet.JSONToParquet(ctx, rowsFile, columns, types, empty); err != nil {
			return 0, err
		}
		if err := j.store(ctx, empty, key); err != nil {
			return 0, err
		}
		written[key] = true
	}
	for obj, err := range j.Bucket.List(ctx, ExportDir(table, orgID)) {
		if err != nil {
			return 0, err
		}
		if written[obj.Key] {
			continue
		}
		if err := j.Bucket.Delete(ctx, obj.Key); err != nil && !errors.Is(err, blob.ErrNotFound) {
			return 0, err
		}
		if j.Cache != "" {
			lake.Evict(j.Cache, obj.Key)
		}
	}
	return int64(len(written)), nil
}

// store puts a local file in the bucket under key, and in the local lake
// cache when there is one.
func (j *Export) store(ctx context.Context, local, key string) error {
	data, err := os.ReadFile(local)
	if err != nil {
		return err
	}
	if _, err := j.Bucket.Put(ctx, key, bytes.NewReader(data), blob.PutOptions{}); err != nil {
		return err
	}
	if j.Cache != "" {
		return lake.WriteCache(j.Cache, key, data)
	}
	return nil
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

// snapshotTypes are the snapshot columns that are not VARCHAR, by name,
// with their types in the Parquet files (a persisted schema:
// testdata/export_schema.golden). Lists are JSON arrays in the catalog.
var snapshotTypes = map[string]string{
	"is_active": "BOOLEAN", "reportable": "BOOLEAN", "groupable": "BOOLEAN", "disabled": "BOOLEAN", "email_confirmed": "BOOLEAN",
	"start_date": "TIMESTAMP", "last_login": "TIMESTAMP", "created_on": "TIMESTAMP", "modified_on": "TIMESTAMP", "deleted_on": "TIMESTAMP",
	"assigned_on": "TIMESTAMP", "submitted_on": "TIMESTAMP",
	"version": "INTEGER", "depth": "INTEGER", "evaluation_number": "INTEGER",
	"weight": "DOUBLE", "weighted_score": "DOUBLE", "evaluation_score": "DOUBLE",
	"osms": "VARCHAR[]", "ancestor_ids": "VARCHAR[]", "codes": "VARCHAR[]", "tag_values": "VARCHAR[]", "auto_tag_values": "VARCHAR[]",
	"reviewed_on": "TIMESTAMP",
}

func snapshotType(column string) string {
	if t, ok := snapshotTypes[column]; ok {
		return t
	}
	return "VARCHAR"
}

// writeRows writes the query's rows of an organization as JSON lines, each
// value as its snapshot type reads it, and returns the columns and the
// number of rows.
func (j *Export) writeRows(ctx context.Context, path, query, orgID string) ([]string, int64, error) {
	f, err := os.Create(path)
	if err != nil {
		return nil, 0, err
	}
	defer f.Close()
	w := bufio.NewWriter(f)
	enc := json.NewEncoder(w)
	cols, n, err := j.Snapshots.Snapshot(ctx, query, orgID, func(columns []string, values []any) error {
		row := make(map[string]any, len(columns))
		for i, c := range columns {
			row[c] = snapshotValue(snapshotType(c), values[i])
		}
		return enc.Encode(row)
	})
	if err != nil {
		return nil, 0, err
	}
	if filepath.Base(path) == "evaluation_answers.jsonl" && j.Auto != nil {
		err = j.Auto.EachAutoEvaluation(ctx, orgID, func(e catalog.Evaluation, formName string) error {
			for _, a := range e.Answers {
				n++
				if err := enc.Encode(autoAnswerRow(e, formName, a)); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			return nil, 0, err
		}
	}
	if err := w.Flush(); err != nil {
		return nil, 0, err
	}
	return cols, n, f.Close()
}

// autoAnswerRow is an Auto evaluation's answer as a row of the
// evaluation_answers snapshot (sql/export/evaluation_answers.sql's
// columns): the answer as it stands (a reviewer's where one confirmed or
// overrode it), and what the classifiers answered.
func autoAnswerRow(e catalog.Evaluation, formName string, a catalog.EvaluationAnswer) map[string]any {
	return map[string]any{"evaluation_id": e.ID, "evaluation_number": e.Number, "org_id": e.OrgID, "form_id": e.FormID, "form_name": formName,
		"conversation_id": e.ConversationID, "agent_id": e.AgentID, "analyst_id": nil, "source": e.Source, "status": e.Status,
		"evaluation_score": e.Score, "call_summary": e.CallSummary, "assigned_on": e.AssignedOn, "submitted_on": e.SubmittedOn,
		"modified_on": e.ModifiedOn, "module_id": a.ModuleID, "module_name": a.ModuleName, "question_id": a.QuestionID,
		"question_text": a.QuestionText, "category": a.Category, "weight": a.Weight, "tag_values": a.TagValues, "fill_in": a.FillIn,
		"note": a.Note, "weighted_score": a.WeightedScore, "auto_tag_values": a.AutoTagValues, "reviewed_by": a.ReviewedBy,
		"reviewed_on": a.ReviewedOn}
}

// snapshotValue is a catalog value as JSON for its snapshot type: lists
// are the catalog's JSON text, booleans its 0 and 1.
func snapshotValue(typ string, v any) any {
	switch x := v.(type) {
	case string:
		if strings.HasSuffix(typ, "[]") {
			return json.RawMessage(x)
		}
	case int64:
		if typ == "BOOLEAN" {
			return x != 0
		}
	}
	return v
}
