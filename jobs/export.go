package jobs

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"strings"

	json "github.com/goccy/go-json"

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
// (earshot sql, BigQuery, Trino) without the catalog. A snapshot replaces
// the previous one in one write.
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

// ParquetWriter writes rows given as JSON lines to a Parquet file
// (lakedb.DB).
type ParquetWriter interface {
	JSONToParquet(ctx context.Context, rowsFile string, columns, types []string, out string) error
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

// snapshot writes one table of one organization: the catalog's rows go
// to a local JSON-lines file, which DuckDB copies, typed, to a local
// Parquet file, which is then stored in the bucket.
func (j *Export) snapshot(ctx context.Context, dir, table, query, orgID string) (int64, error) {
	rowsFile := filepath.Join(dir, table+".jsonl")
	columns, rows, err := j.writeRows(ctx, rowsFile, query, orgID)
	if err != nil {
		return 0, err
	}
	local := filepath.Join(dir, table+".parquet")
	types := make([]string, len(columns))
	for i, c := range columns {
		types[i] = snapshotType(c)
	}
	if err := j.Parquet.JSONToParquet(ctx, rowsFile, columns, types, local); err != nil {
		return 0, err
	}
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
