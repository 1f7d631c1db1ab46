package jobs_test

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/earshot/earshot/internal/lab/lakegen"
	"github.com/earshot/earshot/internal/testlake"
	"github.com/earshot/earshot/jobs"
	"github.com/earshot/earshot/warehouse/blob"
	"github.com/earshot/earshot/warehouse/catalog"
)

var update = flag.Bool("update", false, "rewrite golden files")

// The export job writes each organization's snapshots and only its rows;
// a second run replaces them. Their columns are a persisted schema
// (testdata/export_schema.golden): analysts' queries depend on them.
func TestExport(t *testing.T) {
	ctx := context.Background()
	cat, bucket, dir := testlake.New(t)
	var orgs []lakegen.Org
	for i, name := range []string{"acme", "globex"} {
		org, err := lakegen.CreateOrg(ctx, cat, name, 3+i)
		if err != nil {
			t.Fatal(err)
		}
		orgs = append(orgs, org)
		for u := range 2 + i {
			s := func(v string) *string { return &v }
			if _, err := cat.People.CreateUser(ctx, org.ID, catalog.UserInput{UserName: s(fmt.Sprintf("%s-u%d", name, u)), FirstName: s("Ann"),
				LastName: s("Lee"), Email: s(fmt.Sprintf("u%d@%s.example", u, name))}); err != nil {
				t.Fatal(err)
			}
			if _, err := cat.People.CreateAgent(ctx, org.ID, catalog.AgentInput{FirstName: s("Bo"), LastName: s("Ray"),
				AgentEmail: s(fmt.Sprintf("a%d@%s.example", u, name)), AgentCode: s(fmt.Sprintf("A%d", u))}); err != nil {
				t.Fatal(err)
			}
		}
	}
	evaluate(t, cat, orgs[0].ID)
	lakeRoot := filepath.Join(dir, "bucket")
	engine := testlake.Engine(t, lakeRoot)
	job := &jobs.Export{Orgs: cat.Orgs, Snapshots: cat, Parquet: engine, Bucket: bucket, Log: slog.New(slog.NewTextHandler(io.Discard, nil))}
	// What an export of before the days left (one file for every day), and
	// a day no evaluation has any more: the next export removes them.
	stale := []string{jobs.ExportPath("evaluation_answers", orgs[0].ID), jobs.ExportDir("evaluation_answers", orgs[0].ID) + "date=2020-01-01/data_0.parquet"}
	for _, key := range stale {
		if _, err := bucket.Put(ctx, key, strings.NewReader("stale"), blob.PutOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	for range 2 {
		counts, err := job.Run(ctx, catalog.JobRun{})
		if err != nil {
			t.Fatal(err)
		}
		if counts["organizations"] != 2 || counts["files"] != 12 || counts["users_rows"] != 5 || counts["hierarchy_rows"] != 2*48 ||
			counts["evaluation_answers_rows"] != 2 {
			t.Fatalf("counts %v", counts)
		}
	}
	count := func(query string, args ...any) int {
		var n int
		if err := engine.QueryRowContext(ctx, query, args...).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	for _, key := range stale {
		if _, err := os.Stat(filepath.Join(lakeRoot, filepath.FromSlash(key))); !os.IsNotExist(err) {
			t.Errorf("%s is still there: %v", key, err)
		}
	}
	// The evaluation's answers lie in the folder of the day it was
	// assigned; an organization without any has an empty file, so that
	// engines still find the table's columns.
	today := time.Now().UTC().Format(time.DateOnly)
	for i, want := range []string{"date=" + evaluatedOn(t, cat, orgs[0].ID), "date=" + today} {
		days, _ := filepath.Glob(filepath.Join(lakeRoot, filepath.FromSlash(jobs.ExportDir("evaluation_answers", orgs[i].ID)), "*"))
		if len(days) != 1 || filepath.Base(days[0]) != want {
			t.Errorf("org %d: evaluation_answers in %v, want one folder %s", i, days, want)
		}
	}
	for i, org := range orgs {
		snap := func(table string) string { return snapshotFiles(lakeRoot, table, org.ID) }
		if n := count(`SELECT count(*) FROM read_parquet(?) WHERE org_id = ?`, snap("users"), org.ID); n != 2+i {
			t.Errorf("org %d: %d users", i, n)
		}
		if n := count(`SELECT count(*) FROM read_parquet(?) WHERE org_id <> ?`, snap("agents"), org.ID); n != 0 {
			t.Errorf("org %d: %d agents of another organization", i, n)
		}
		if n := count(`SELECT count(*) FROM read_parquet(?)`, snap("classifiers")); n != 3+i {
			t.Errorf("org %d: %d classifiers", i, n)
		}
		if n := count(`SELECT count(*) FROM read_parquet(?) WHERE question_text = 'Greeted the customer?' AND tag_values = ['Yes']
			AND weighted_score = 2 AND evaluation_score = 100 AND evaluation_number = 1 AND status = 'Completed'`, snap("evaluation_answers")); n != 1-i {
			t.Errorf("org %d: %d greeting answers", i, n)
		}
		// The hierarchy's paths and depths: R1S1T1 is a team under Site 1.1 under Region 1.
		if n := count(`SELECT count(*) FROM read_parquet(?) WHERE code = 'R1S1T1' AND depth = 3
			AND path = 'Region 1 / Site 1.1 / Team 1.1.1' AND codes = ['R1S1T1'] AND len(ancestor_ids) = 3`, snap("hierarchy")); n != 1 {
			t.Errorf("org %d: team R1S1T1 not as expected", i)
		}
	}

	var schema strings.Builder
	for _, table := range []string{"agents", "classifiers", "evaluation_answers", "hierarchy", "organizations", "users"} {
		rows, err := engine.QueryContext(ctx, `SELECT column_name, column_type FROM (DESCRIBE SELECT * FROM read_parquet(?, hive_partitioning = false))`,
			snapshotFiles(lakeRoot, table, orgs[0].ID))
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintln(&schema, table)
		for rows.Next() {
			var name, typ string
			rows.Scan(&name, &typ)
			fmt.Fprintf(&schema, "  %-18s %s\n", name, typ)
		}
		rows.Close()
	}
	golden := filepath.Join("testdata", "export_schema.golden")
	if *update {
		os.MkdirAll("testdata", 0o755)
		os.WriteFile(golden, []byte(schema.String()), 0o644)
	}
	want, _ := os.ReadFile(golden)
	if schema.String() != string(want) {
		t.Fatalf("export schema changed (go test ./jobs -run TestExport -update):\n%s", schema.String())
	}
}

// snapshotFiles is the path, or the pattern for DuckDB, of an
// organization's snapshot files of a table under the lake's root.
func snapshotFiles(lakeRoot, table, orgID string) string {
	if _, byDate := jobs.ExportByDate[table]; byDate {
		return filepath.Join(lakeRoot, filepath.FromSlash(jobs.ExportDir(table, orgID)), "date=*", "*.parquet")
	}
	return filepath.Join(lakeRoot, filepath.FromSlash(jobs.ExportPath(table, orgID)))
}

// evaluatedOn is the UTC day the organization's one evaluation was
// assigned.
func evaluatedOn(t *testing.T, cat *catalog.Catalog, orgID string) string {
	t.Helper()
	list, err := cat.Evaluations.Evaluations(context.Background(), orgID, catalog.EvaluationFilter{Limit: 10})
	if err != nil || len(list) != 1 {
		t.Fatalf("evaluations %v %v", list, err)
	}
	return list[0].AssignedOn.UTC().Format(time.DateOnly)
}

// evaluate gives an organization one submitted evaluation of two answers.
func evaluate(t *testing.T, cat *catalog.Catalog, org string) {
	t.Helper()
	ctx := context.Background()
	users, err := cat.People.Users(ctx, org, nil)
	if err != nil || len(users) == 0 {
		t.Fatal(users, err)
	}
	conv := catalog.NewID()
	arrived := time.Date(2025, 10, 7, 9, 0, 0, 0, time.UTC)
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(cat.Interactions.CreateInteraction(ctx, catalog.Interaction{ID: conv, OrgID: org, MediaType: catalog.MediaChat, Status: catalog.StatusReadyToSample,
		FileName: "c.json", ArrivedOn: arrived, LocaleID: 1033, ExtendedMetadata: map[string]string{}, Source: "text", ModifiedOn: arrived}, false))
	form, err := cat.Evaluations.CreateForm(ctx, catalog.EvaluationForm{OrgID: org, Name: "QA", Definition: []byte(`{"modules":[]}`)})
	must(err)
	e, err := cat.Evaluations.CreateEvaluation(ctx, catalog.Evaluation{OrgID: org, FormID: form.ID, ConversationID: conv, AnalystID: users[0].ID})
	must(err)
	two, note, score := 2.0, "Escalate.", 100.0
	_, err = cat.Evaluations.SaveEvaluation(ctx, org, e.ID, catalog.EvaluationChange{Status: catalog.EvaluationCompleted, Submitted: true,
		From: []string{catalog.EvaluationNotStarted}, Score: &score, Answers: []catalog.EvaluationAnswer{
			{QuestionID: "q1", AnswerID: catalog.NewID(), ModuleID: "m1", ModuleName: "Opening", QuestionText: "Greeted the customer?", Weight: 2,
				TagIDs: []string{"t1"}, TagValues: []string{"Yes"}, WeightedScore: &two},
			{QuestionID: "q2", AnswerID: catalog.NewID(), ModuleID: "m2", ModuleName: "Notes", QuestionText: "What happened?",
				TagIDs: []string{}, TagValues: []string{}, FillIn: &note},
		}})
	must(err)
}
