package jobs

import (
	"context"
	"maps"
	"slices"
	"testing"
	"time"

	"github.com/earshot/earshot/warehouse/catalog"
	"github.com/earshot/earshot/warehouse/results"
)

// One current-row rule (warehouse/lake/current.go) for every reader: an
// archive processed three times and a classifier re-run over the day leave
// several runs' rows in the lake until compaction, and the API's page walk,
// its total (X-Total-Records), the dashboard's day count and earshot sql
// each count every conversation once. The archive's chats keep their ids.
func TestReprocessingCountsEachConversationOnce(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	e := newEnv(t)
	cl, err := e.cat.Classifiers.CreateClassifier(ctx, e.org.ID, classifierInput("Declined", "Classifier", `{"groups":[{"rules":[{"phrases":["declined"]}]}]}`))
	if err != nil {
		t.Fatal(err)
	}
	archive := e.stage(t, "a.tar", tarOf(t, map[string]string{"1.json": earshotChat, "2.txt": textChat, "3.json": ccaiChat}, ""))
	e.stage(t, "single.json", []byte(earshotChat))
	if _, err := e.runner.Run(ctx, "ingest"); err != nil {
		t.Fatal(err)
	}
	first, err := e.cat.Interactions.ChatIDs(ctx, e.org.ID, archive)
	if err != nil || len(first) != 3 {
		t.Fatalf("the archive's chats: %v %v", first, err)
	}
	for range 2 { // three runs of the archive's chats in the lake
		if _, err := e.sql.ExecContext(ctx, `UPDATE interactions SET status = 'Processing' WHERE id = ?`, archive); err != nil {
			t.Fatal(err)
		}
		if _, err := e.runner.Run(ctx, "ingest"); err != nil {
			t.Fatal(err)
		}
	}
	today := time.Now().UTC().Truncate(24 * time.Hour)
	if _, err := e.runner.Start(ctx, "reclassify", e.org.ID, catalog.ReclassifyParams{ClassifierID: cl.ID, From: today.AddDate(0, 0, -1), To: today.AddDate(0, 0, 2)}); err != nil {
		t.Fatal(err)
	}
	e.runner.Wait()
	if again, err := e.cat.Interactions.ChatIDs(ctx, e.org.ID, archive); err != nil || !maps.Equal(again, first) {
		t.Fatalf("processed again, the archive's chats are %v (%v), were %v", again, err, first)
	}

	q := results.PageQuery{OrgID: e.org.ID, Window: results.Window{From: today.AddDate(0, 0, -1), To: today.AddDate(0, 0, 2).Add(-time.Microsecond)}, Limit: 2}
	var walked []string
	for {
		page, more, err := e.reader.Page(ctx, q, nil)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range page {
			walked = append(walked, c.ID)
		}
		if !more || len(page) == 0 {
			break
		}
		q.AfterID = page[len(page)-1].ID
	}
	q.AfterID = ""
	total, err := e.reader.Count(ctx, q, nil)
	if err != nil {
		t.Fatal(err)
	}
	days, err := e.reader.Daily(ctx, q, []string{cl.ID})
	if err != nil {
		t.Fatal(err)
	}
	var dayCount, evaluated int64
	for _, d := range days {
		dayCount, evaluated = dayCount+d.Conversations, evaluated+d.Evaluated[cl.ID]
	}
	var inSQL, resultsInSQL int64
	views := e.analystViews(t)
	if err := views.QueryRowContext(ctx, `SELECT count(*) FROM conversations`).Scan(&inSQL); err != nil {
		t.Fatal(err)
	}
	if err := views.QueryRowContext(ctx, `SELECT count(*) FROM classifier_results WHERE classifier_id = ?`, cl.ID).Scan(&resultsInSQL); err != nil {
		t.Fatal(err)
	}

	slices.Sort(walked)
	if len(slices.Compact(slices.Clone(walked))) != len(walked) {
		t.Errorf("the page walk lists a conversation twice: %v", walked)
	}
	want := int64(4) // the archive's three chats and the single chat
	t.Logf("page walk %d, X-Total-Records %d, dashboard day count %d, earshot sql %d (results: dashboard %d, earshot sql %d)",
		len(walked), total, dayCount, inSQL, evaluated, resultsInSQL)
	if int64(len(walked)) != want || total != want || dayCount != want || inSQL != want || evaluated != want || resultsInSQL != want {
		t.Errorf("counts differ: page walk %d, X-Total-Records %d, dashboard %d, earshot sql %d; results: dashboard %d, earshot sql %d; want %d each",
			len(walked), total, dayCount, inSQL, evaluated, resultsInSQL, want)
	}
}
