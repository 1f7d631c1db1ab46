// Package ddl prints external-table DDL over the lake's hive-partitioned
// layout in the bucket, so that BigQuery, Trino or DuckDB query the lake
// where it lies. Each lake table gets a raw table (every run's rows, named
// lake_TABLE) and a view of the same name as earshot sql's that keeps each
// conversation's current rows; the export snapshots get a table each.
package ddl

import (
	"fmt"
	"io"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/earshot/earshot/warehouse/lake"
)

// Engines DDL is printed for.
var Engines = []string{"bigquery", "trino", "duckdb"}

// table is a lake table or a snapshot and its columns.
type table struct {
	name     string
	schema   *arrow.Schema
	snapshot bool   // lake/export/NAME/org=ORG/snapshot.parquet, or NAME/org=ORG/date=YYYY-MM-DD/*.parquet by date
	byDate   bool   // a snapshot in a folder per day
	key      string // the classifier column of a results table; "" for others
}

var (
	timestamp = &arrow.TimestampType{Unit: arrow.Microsecond}
	strs      = arrow.ListOf(arrow.BinaryTypes.String)
)

func cols(spec ...any) *arrow.Schema {
	var fields []arrow.Field
	for i := 0; i < len(spec); i += 2 {
		fields = append(fields, arrow.Field{Name: spec[i].(string), Type: spec[i+1].(arrow.DataType), Nullable: true})
	}
	return arrow.NewSchema(fields, nil)
}

var (
	s, b, i32, f64 = arrow.BinaryTypes.String, arrow.FixedWidthTypes.Boolean, arrow.PrimitiveTypes.Int32, arrow.PrimitiveTypes.Float64
)

// tables: the lake's, then the export job's snapshots (their columns are
// sql/export's; a test holds them to the job's schema golden file).
var tables = []table{
	{name: "conversations", schema: lake.ConversationSchema},
	{name: "transcript_segments", schema: lake.SegmentSchema},
	{name: "classifier_results", schema: lake.ClassifierResultSchema, key: "classifier_id"},
	{name: "model_results", schema: lake.ModelResultSchema, key: "model_id"},
	{name: "organizations", snapshot: true, schema: cols("org_id", s, "name", s, "created_on", timestamp)},
	{name: "users", snapshot: true, schema: cols("user_id", s, "org_id", s, "user_name", s, "first_name", s, "last_name", s, "email", s,
		"phone_number", s, "role_name", s, "disabled", b, "email_confirmed", b, "last_login", timestamp, "created_on", timestamp, "modified_on", timestamp)},
	{name: "agents", snapshot: true, schema: cols("agent_id", s, "org_id", s, "user_id", s, "manager_id", s, "first_name", s, "last_name", s,
		"agent_email", s, "agent_code", s, "is_active", b, "start_date", timestamp, "osms", strs, "created_on", timestamp, "modified_on", timestamp)},
	{name: "hierarchy", snapshot: true, schema: cols("node_id", s, "org_id", s, "parent_id", s, "name", s, "code", s, "category", s,
		"sub_category", s, "is_active", b, "depth", i32, "path", s, "ancestor_ids", strs, "codes", strs, "created_on", timestamp, "modified_on", timestamp)},
	{name: "classifiers", snapshot: true, schema: cols("classifier_id", s, "org_id", s, "name", s, "description", s, "classifier_type", s,
		"category_name", s, "reportable", b, "groupable", b, "is_active", b, "version", i32, "definition", s,
		"created_on", timestamp, "modified_on", timestamp, "deleted_on", timestamp)},
	{name: "evaluation_answers", snapshot: true, byDate: true, schema: cols("evaluation_id", s, "evaluation_number", i32, "org_id", s, "form_id", s,
		"form_name", s, "conversation_id", s, "agent_id", s, "analyst_id", s, "source", s, "status", s, "evaluation_score", f64,
		"call_summary", s, "assigned_on", timestamp, "submitted_on", timestamp, "modified_on", timestamp, "module_id", s, "module_name", s,
		"question_id", s, "question_text", s, "category", s, "weight", f64, "tag_values", strs, "fill_in", s, "note", s,
		"weighted_score", f64, "auto_tag_values", strs, "reviewed_by", s, "reviewed_on", timestamp)},
}

// Options say where the lake is and what to name things.
type Options struct {
	Engine string
	// Location is the lake's root: gs://bucket/prefix/lake (BigQuery,
	// Trino) or a local directory or gs:// URL (DuckDB).
	Location string
	// Dataset is the BigQuery dataset, the Trino catalog.schema, or the
	// DuckDB schema ("" in DuckDB: the default one).
	Dataset string
}

// Write prints the DDL of every table and view.
func Write(w io.Writer, o Options) error {
	o.Location = strings.TrimSuffix(o.Location, "/")
	var d dialect
	switch o.Engine {
	case "bigquery":
		if !strings.HasPrefix(o.Location, "gs://") {
			return fmt.Errorf("BigQuery reads the lake from a gs:// bucket; pass --bucket gs://BUCKET/PREFIX or --location gs://BUCKET/PREFIX/lake (now %q)", o.Location)
		}
		d = bigQuery{}
	case "trino":
		d = trino{}
	case "duckdb":
		d = duckDB{}
	default:
		return fmt.Errorf("unknown engine %q: use one of %s", o.Engine, strings.Join(Engines, ", "))
	}
	fmt.Fprintf(w, "-- Earshot lake tables for %s over %s (earshot warehouse ddl).\n", o.Engine, o.Location)
	fmt.Fprintln(w, "-- lake_* tables hold every run's rows; the views keep each conversation's current ones.")
	fmt.Fprintln(w, "-- Files of a run that crashed before committing stay outside the manifest (earshot sql")
	fmt.Fprintln(w, "-- skips them) until the nightly compact job deletes them, at most a day later.")
	for _, t := range tables {
		fmt.Fprintln(w)
		if t.snapshot {
			partitions := []string{"org"}
			if t.byDate {
				partitions = append(partitions, "date")
			}
			fmt.Fprintln(w, d.table(o, t.name, o.Location+"/export/"+t.name, t.schema, partitions))
			continue
		}
		fmt.Fprintln(w, d.table(o, "lake_"+t.name, o.Location+"/"+t.name, t.schema, []string{"org", "date"}))
		fmt.Fprintln(w, view(d, o, t.name, currentRows(d, o, t)))
	}
	return nil
}

// columns is a table's column list, partition columns last.
func columns(d dialect, schema *arrow.Schema, prefix string) string {
	var names []string
	for _, f := range schema.Fields() {
		names = append(names, prefix+d.quote(f.Name))
	}
	return strings.Join(names, ", ")
}

// currentRows is the query of a lake table's view, by the rule of
// warehouse/lake/current.go: conversations of their upload's newest run;
// segments of their conversation's run; results of the newest run not
// older than their conversation's.
func currentRows(d dialect, o Options, t table) string {
	raw, convs := d.name(o, "lake_"+t.name), d.name(o, "conversations")
	all := columns(d, t.schema, "") + ", " + d.quote("date")
	switch {
	case t.name == "conversations":
		return fmt.Sprintf("SELECT %s FROM (\n  SELECT t.*, %s AS newest_run\n  FROM %s t\n) current_rows WHERE run_id = newest_run", all, lake.ConversationRunSQL, raw)
	case t.key == "":
		return fmt.Sprintf("SELECT %s, s.%s FROM %s s\nJOIN %s c ON s.conversation_id = c.conversation_id AND s.run_id = c.run_id",
			columns(d, t.schema, "s."), d.quote("date"), raw, convs)
	}
	return fmt.Sprintf("SELECT %s FROM (\n  SELECT r.*, %s AS run_rank\n"+
		"  FROM %s r JOIN %s c ON r.conversation_id = c.conversation_id AND r.run_id >= c.run_id\n) current_rows WHERE run_rank = 1",
		all, lake.ResultRankSQL(t.key), raw, convs)
}
