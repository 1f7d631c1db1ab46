package jobs

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"testing"
	"time"

	"github.com/earshot/earshot/internal/testlake"
	"github.com/earshot/earshot/warehouse/catalog"
	"github.com/earshot/earshot/warehouse/results"
)

// Every job that commits lake files keeps the dashboards' figures of the
// days it wrote: after ingest batches, a re-run, a reclassification and a
// compaction, a reader that has read nothing answers the days' dashboard
// as the lake does, without a statement on the lake; a compacted day
// keeps one set of figures, its former clusters' dropped.
func TestJobsKeepDashboardFigures(t *testing.T) {
	ctx := context.Background()
	e := newEnv(t) // batches of 2 uploads: a day of several clusters
	cl, err := e.cat.Classifiers.CreateClassifier(ctx, e.org.ID, classifierInput("Cancel", "Classifier", `{"groups":[{"rules":[{"phrases":["cancel"]}]}]}`))
	if err != nil {
		t.Fatal(err)
	}
	var archives []string
	for i := range 3 {
		archives = append(archives, e.stage(t, fmt.Sprintf("day/%d.tar", i), tarOf(t, map[string]string{
			"a.json": earshotChat, "b.txt": textChat, "c.json": ccaiChat}, "")))
	}
	today := time.Now().UTC().Truncate(24 * time.Hour)
	days := []time.Time{today.AddDate(0, 0, -1), today, today.AddDate(0, 0, 1)}
	q := results.PageQuery{OrgID: e.org.ID, Window: results.Window{From: days[0], To: days[2].AddDate(0, 0, 1).Add(-time.Microsecond)}}
	type figures struct{ conversations, hits, kept int64 }
	check := func(when string) figures {
		t.Helper()
		fromLake, err := (&results.Reader{Manifest: e.cat.Manifest, Conversations: e.cat.Interactions, Lake: e.lake}).Daily(ctx, q, []string{cl.ID})
		if err != nil {
			t.Fatal(err)
		}
		var f figures
		for _, d := range fromLake {
			f.conversations, f.hits = f.conversations+d.Conversations, f.hits+d.Hits[cl.ID]
		}
		counting := &testlake.Counting{DB: e.lake}
		got, err := (&results.Reader{Manifest: e.cat.Manifest, Conversations: e.cat.Interactions, Lake: counting, Figures: e.cat.Manifest}).Daily(ctx, q, []string{cl.ID})
		if err != nil || !reflect.DeepEqual(got, fromLake) || counting.Statements() != 0 {
			t.Fatalf("%s: kept figures give %+v (%v) in %d statements on the lake, the lake %+v", when, got, err, counting.Statements(), fromLake)
		}
		rows, err := e.cat.Manifest.KeptFigures(ctx, e.org.ID, days)
		if err != nil {
			t.Fatal(err)
		}
		f.kept = int64(len(rows))
		return f
	}

	if _, err := e.runner.Run(ctx, "ingest"); err != nil {
		t.Fatal(err)
	}
	if f := check("after the ingest"); f != (figures{9, 3, f.kept}) || f.kept < 2 {
		t.Fatalf("after two batches: %+v, want 9 conversations, 3 hits, figures kept for each batch", f)
	}
	e.sql.ExecContext(ctx, `UPDATE interactions SET status = 'Processing' WHERE id = ?`, archives[0])
	if _, err := e.runner.Run(ctx, "ingest"); err != nil {
		t.Fatal(err)
	}
	rerun := check("after a re-run")

	if _, err := e.cat.Classifiers.UpdateClassifier(ctx, e.org.ID, cl.ID, catalog.ClassifierInput{
		Definition: json.RawMessage(`{"groups":[{"rules":[{"phrases":["help", "cancel"]}]}]}`)}); err != nil {
		t.Fatal(err)
	}
	if _, err := e.runner.Start(ctx, "reclassify", e.org.ID, catalog.ReclassifyParams{ClassifierID: cl.ID, From: days[0], To: days[2]}); err != nil {
		t.Fatal(err)
	}
	e.runner.Wait()
	if f := check("after a reclassification"); f.conversations != rerun.conversations || f.hits <= rerun.hits {
		t.Fatalf("after the reclassification: %+v, before %+v", f, rerun)
	}

	if _, err := e.runner.Run(ctx, "compact"); err != nil {
		t.Fatal(err)
	}
	if f := check("after compaction"); f != (figures{9, 6, 1}) {
		t.Fatalf("after compaction: %+v, want 9 conversations, 6 hits, one set of figures kept", f)
	}
}
