package ddl

import (
	"bytes"
	"context"
	"database/sql"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	_ "github.com/duckdb/duckdb-go/v2"

	"github.com/earshot/earshot/internal/lab/lakegen"
	"github.com/earshot/earshot/internal/testlake"
	"github.com/earshot/earshot/jobs"
	"github.com/earshot/earshot/warehouse/catalog"
	"github.com/earshot/earshot/warehouse/lake"
)

var update = flag.Bool("update", false, "rewrite the golden files")

// The DDL of each engine, as printed.
func TestGolden(t *testing.T) {
	for _, o := range []Options{
		{Engine: "bigquery", Location: "gs://acme-calls/earshot/lake", Dataset: "earshot"},
		{Engine: "trino", Location: "gs://acme-calls/earshot/lake", Dataset: "hive.earshot"},
		{Engine: "duckdb", Location: "/srv/earshot/data/bucket/lake"},
	} {
		var out bytes.Buffer
		if err := Write(&out, o); err != nil {
			t.Fatal(err)
		}
		golden := filepath.Join("testdata", o.Engine+".sql.golden")
		if *update {
			os.MkdirAll("testdata", 0o755)
			os.WriteFile(golden, out.Bytes(), 0o644)
		}
		want, _ := os.ReadFile(golden)
		if out.String() != string(want) {
			t.Errorf("%s DDL differs from %s (go test ./warehouse/ddl -update):\n%s", o.Engine, golden, out.String())
		}
	}
}

func TestRefusals(t *testing.T) {
	for _, o := range []Options{{Engine: "bigquery", Location: "/local/lake"}, {Engine: "snowflake", Location: "gs://b/lake"}} {
		if err := Write(io.Discard, o); err == nil {
			t.Errorf("%+v: no error", o)
		}
	}
}

// The snapshot columns here are the ones the export job writes.
func TestSnapshotColumnsMatchTheExport(t *testing.T) {
	golden, err := os.ReadFile("../../jobs/testdata/export_schema.golden")
	if err != nil {
		t.Fatal(err)
	}
	var got strings.Builder
	for _, name := range []string{"agents", "classifiers", "evaluation_answers", "hierarchy", "organizations", "users"} {
		fmt.Fprintln(&got, name)
		for _, tb := range tables {
			if tb.name != name {
				continue
			}
			for _, f := range tb.schema.Fields() {
				fmt.Fprintf(&got, "  %-18s %s\n", f.Name, duckType(f.Type.String()))
			}
		}
	}
	if got.String() != string(golden) {
		t.Fatalf("snapshot columns differ from the export job's:\n%s", got.String())
	}
}

func duckType(arrowType string) string {
	return map[string]string{"utf8": "VARCHAR", "bool": "BOOLEAN", "int32": "INTEGER", "float64": "DOUBLE", "timestamp[us]": "TIMESTAMP",
		"list<item: utf8, nullable>": "VARCHAR[]"}[arrowType]
}

// The DuckDB DDL runs, over a real lake, and its views count what the lake
// holds: every processed conversation once, 3 results each, all snapshots.
func TestDuckDBDDLRuns(t *testing.T) {
	ctx := context.Background()
	cat, bucket, dir := testlake.New(t)
	o := lakegen.Options{Orgs: 2, Conversations: 400, Days: 4, Classifiers: 3, Start: time.Date(2025, 10, 6, 0, 0, 0, 0, time.UTC), Seed: 5}
	w := &lake.Writer{Bucket: bucket}
	orgs, err := lakegen.Generate(ctx, cat, w, o)
	if err != nil {
		t.Fatal(err)
	}
	// The same days again: a second run of rows for new conversations.
	again := o
	again.Seed = 6
	if err := lakegen.Commit(ctx, cat, w, orgs, again); err != nil {
		t.Fatal(err)
	}
	// Two turns of one conversation's transcript, and a stale turn of an older run.
	var conv, run, org string
	var arrived time.Time
	catalogSQL := testlake.CatalogSQL(t, filepath.Join(dir, testlake.CatalogFile))
	catalogSQL.QueryRow(`SELECT id, lake_run_id, org_id, arrived_on FROM interactions WHERE lake_run_id IS NOT NULL LIMIT 1`).Scan(&conv, &run, &org, &arrived)
	var segs lake.Batch
	for i, r := range []string{run, run, "00000000-0000-7000-8000-000000000000"} {
		segs.Segments = append(segs.Segments, lake.Segment{ConversationID: conv, RunID: r, OrgID: org, ArrivedOn: arrived,
			Index: int32(i), Speaker: "Agent", Text: "hello"})
	}
	if _, err := w.Write(ctx, run, segs); err != nil {
		t.Fatal(err)
	}
	if _, err := (&jobs.Export{Orgs: cat.Orgs, Snapshots: cat, Parquet: testlake.Engine(t, filepath.Join(dir, "bucket")), Bucket: bucket, Log: slog.New(slog.NewTextHandler(io.Discard, nil))}).Run(ctx, catalog.JobRun{}); err != nil {
		t.Fatal(err)
	}
	var ddl bytes.Buffer
	if err := Write(&ddl, Options{Engine: "duckdb", Location: filepath.Join(dir, "bucket", "lake")}); err != nil {
		t.Fatal(err)
	}
	db, err := sql.Open("duckdb", "")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec(ddl.String()); err != nil {
		t.Fatalf("%v\n%s", err, ddl.String())
	}
	var processed int
	catalogSQL.QueryRow(`SELECT count(*) FROM interactions WHERE status IN ('ReadyToSample', 'Sampled')`).Scan(&processed)
	for query, want := range map[string]int{
		`SELECT count(*) FROM conversations`:                                                 processed,
		`SELECT count(DISTINCT conversation_id) FROM conversations`:                          processed,
		`SELECT count(*) FROM classifier_results`:                                            processed * 3,
		`SELECT count(*) FROM model_results`:                                                 processed * 3,
		`SELECT count(*) FROM conversations WHERE "date" = DATE '2025-10-07'`:                -1,
		`SELECT count(*) FROM transcript_segments`:                                           2,
		`SELECT count(*) FROM organizations`:                                                 2,
		`SELECT count(*) FROM evaluation_answers`:                                            0,
		`SELECT count(*) FROM hierarchy WHERE depth = 3`:                                     2 * 36,
		`SELECT count(*) FROM classifiers c JOIN classifier_results r USING (classifier_id)`: processed * 3,
	} {
		var n int
		if err := db.QueryRow(query).Scan(&n); err != nil {
			t.Fatalf("%s: %v", query, err)
		}
		if (want >= 0 && n != want) || (want < 0 && n == 0) {
			t.Errorf("%s = %d, want %d", query, n, want)
		}
	}
}
