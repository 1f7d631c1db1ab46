package jobs

import (
	"context"
	"database/sql"
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/earshot/earshot/warehouse/analyst"
	"github.com/earshot/earshot/warehouse/blob"
	"github.com/earshot/earshot/warehouse/catalog"
	"github.com/earshot/earshot/warehouse/lakedb"
)

// earshot sql's views keep the same conversations and turns as the API:
// those of each conversation's current run, after an archive processed
// again (its chats replaced by new ones) and before compaction merges the
// files.
func TestViewsKeepTheCurrentRun(t *testing.T) {
	ctx := context.Background()
	e := newEnv(t)
	rerun := e.stage(t, "a.tar", tarOf(t, map[string]string{"1.json": earshotChat, "2.txt": textChat}, ""))
	e.stage(t, "b.tar", tarOf(t, map[string]string{"1.json": earshotChat}, ""))
	e.stage(t, "single.json", []byte(earshotChat))
	if _, err := e.runner.Run(ctx, "ingest"); err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{rerun, rerun} { // twice: three runs of a.tar's chats in the lake
		if _, err := e.sql.ExecContext(ctx, `UPDATE interactions SET status = 'Processing' WHERE id = ?`, id); err != nil {
			t.Fatal(err)
		}
		if _, err := e.runner.Run(ctx, "ingest"); err != nil {
			t.Fatal(err)
		}
	}

	// The API's answer: the catalog's processed conversations and their turns.
	processed, err := e.cat.Interactions.Interactions(ctx, e.org.ID, catalog.InteractionFilter{Statuses: []string{catalog.StatusReadyToSample},
		Limit: 100})
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	var turns int
	transcripts, err := e.reader.Transcripts(ctx, e.org.ID, processed)
	if err != nil {
		t.Fatal(err)
	}
	for _, it := range processed {
		if segs, ok := transcripts[it.ID]; ok {
			want = append(want, it.ID)
			turns += len(segs)
		}
	}

	db := e.analystViews(t)
	rows, err := db.QueryContext(ctx, `SELECT conversation_id FROM conversations ORDER BY conversation_id`)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for rows.Next() {
		var id string
		rows.Scan(&id)
		got = append(got, id)
	}
	rows.Close()
	slices.Sort(want)
	if len(want) != 4 || !slices.Equal(got, want) {
		t.Fatalf("the conversations view has %v, the API %v", got, want)
	}
	var segments int
	if err := db.QueryRowContext(ctx, `SELECT count(*) FROM transcript_segments`).Scan(&segments); err != nil || segments != turns {
		t.Fatalf("the transcript_segments view has %d turns (%v), the API %d", segments, err, turns)
	}
}

// The views state the lake's current-row rule in SQL, over every run's
// files; compaction applies it in Go (lake/current.go) and keeps only the
// rows it chose. Both must choose the same rows of every table, after
// archives processed again, a reclassification, and a re-run after it.
func TestViewsChooseWhatCompactionKeeps(t *testing.T) {
	ctx := context.Background()
	e := newEnv(t)
	cl, err := e.cat.Classifiers.CreateClassifier(ctx, e.org.ID, classifierInput("Topic", "Classifier", `{"groups":[{"rules":[{"phrases":["cancel"]}]}]}`))
	if err != nil {
		t.Fatal(err)
	}
	archive := e.stage(t, "a.tar", tarOf(t, map[string]string{"1.json": earshotChat, "2.txt": textChat}, ""))
	e.stage(t, "b.tar", tarOf(t, map[string]string{"1.json": earshotChat, "2.json": ccaiChat}, ""))
	e.stage(t, "single.txt", []byte(textChat))
	chat := e.stage(t, "again.json", []byte(ccaiChat))
	// processAgain processes an archive (whose chats are replaced by new
	// ones) and a chat (the same conversation, a newer run) again.
	processAgain := func() {
		t.Helper()
		if _, err := e.sql.ExecContext(ctx, `UPDATE interactions SET status = 'Processing' WHERE id IN (?, ?)`, archive, chat); err != nil {
			t.Fatal(err)
		}
		if _, err := e.runner.Run(ctx, "ingest"); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := e.runner.Run(ctx, "ingest"); err != nil {
		t.Fatal(err)
	}
	processAgain()
	if _, err := e.cat.Classifiers.UpdateClassifier(ctx, e.org.ID, cl.ID, catalog.ClassifierInput{
		Definition: json.RawMessage(`{"groups":[{"rules":[{"phrases":["help"]}]}]}`)}); err != nil {
		t.Fatal(err)
	}
	day := time.Now().UTC()
	if _, err := e.runner.Start(ctx, "reclassify", e.org.ID, catalog.ReclassifyParams{ClassifierID: cl.ID, From: day.AddDate(0, 0, -1), To: day.AddDate(0, 0, 1)}); err != nil {
		t.Fatal(err)
	}
	e.runner.Wait()
	// A run after the classifier is gone has no result of it: the older
	// runs' results of the conversations it processed are not current.
	if err := e.cat.Classifiers.DeleteClassifier(ctx, e.org.ID, cl.ID); err != nil {
		t.Fatal(err)
	}
	processAgain()

	columns := map[string]string{
		"conversations":       "conversation_id, run_id",
		"transcript_segments": "conversation_id, run_id, segment_index",
		"classifier_results":  "conversation_id, classifier_id, run_id, classifier_version, result",
		"model_results":       "conversation_id, model_id, run_id, model_version, result",
	}
	// rowsOf lists a query's rows, each row's columns joined, in order.
	rowsOf := func(q interface {
		QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
	}, cols, from string) []string {
		t.Helper()
		rows, err := q.QueryContext(ctx, `SELECT concat_ws('|', `+cols+`) AS r FROM `+from+` ORDER BY r`)
		if err != nil {
			t.Fatalf("%s: %v", from, err)
		}
		defer rows.Close()
		var out []string
		for rows.Next() {
			var s string
			rows.Scan(&s)
			out = append(out, s)
		}
		return out
	}
	db := e.analystViews(t)
	viewRows := map[string][]string{}
	for table, cols := range columns {
		viewRows[table] = rowsOf(db, cols, table)
	}

	if _, err := e.runner.Run(ctx, "compact"); err != nil {
		t.Fatal(err)
	}
	for table, cols := range columns {
		compacted, err := e.cat.Manifest.ManifestFiles(ctx, catalog.ManifestQuery{OrgID: e.org.ID, Table: table})
		if err != nil {
			t.Fatal(err)
		}
		kept := rowsOf(e.lake, cols, `read_parquet(`+lakedb.FileList(e.lake.Root(), catalog.Paths(compacted))+`)`)
		if len(kept) == 0 || !slices.Equal(viewRows[table], kept) {
			t.Errorf("%s: the view chose\n%v\ncompaction kept\n%v", table, viewRows[table], kept)
		}
	}
}

// analystViews opens earshot sql's views over the organization's lake files
// as the manifest lists them now.
func (e *env) analystViews(t *testing.T) *sql.DB {
	t.Helper()
	ctx := context.Background()
	files, err := e.cat.Manifest.ManifestFiles(ctx, catalog.ManifestQuery{OrgID: e.org.ID})
	if err != nil {
		t.Fatal(err)
	}
	byView := analyst.Files{}
	for _, f := range files {
		byView[f.Table] = append(byView[f.Table], f.Path)
	}
	db, err := analyst.Open(ctx, e.lake.Root(), byView)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// An archive processed again whose re-run fails wholly (its staged object
// no longer reads as an archive) keeps the chats of its earlier run: the
// upload says why it failed, its chats stay listed, in the views and after
// compaction.
func TestFailedRerunKeepsEarlierChats(t *testing.T) {
	ctx := context.Background()
	e := newEnv(t)
	archive := e.stage(t, "a.tar", tarOf(t, map[string]string{"1.json": earshotChat, "2.txt": textChat}, ""))
	if _, err := e.runner.Run(ctx, "ingest"); err != nil {
		t.Fatal(err)
	}
	chats := func() []string {
		t.Helper()
		its, err := e.cat.Interactions.Interactions(ctx, e.org.ID, catalog.InteractionFilter{MediaType: catalog.MediaProcessedChat, Statuses: []string{catalog.StatusReadyToSample}, Limit: 100})
		if err != nil {
			t.Fatal(err)
		}
		var ids []string
		for _, it := range its {
			ids = append(ids, it.ID)
		}
		slices.Sort(ids)
		return ids
	}
	before := chats()
	if len(before) != 2 {
		t.Fatalf("chats after the first run: %v", before)
	}
	up, err := e.cat.Interactions.Interaction(ctx, e.org.ID, archive)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.bucket.Put(ctx, *up.StagedKey, strings.NewReader("not a tar archive at all"), blob.PutOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := e.sql.ExecContext(ctx, `UPDATE interactions SET status = 'Processing' WHERE id = ?`, archive); err != nil {
		t.Fatal(err)
	}
	if _, err := e.runner.Run(ctx, "ingest"); err != nil {
		t.Fatal(err)
	}
	up, err = e.cat.Interactions.Interaction(ctx, e.org.ID, archive)
	if err != nil || up.Status != catalog.StatusFailedToProcess || len(up.ProcessFailures) == 0 {
		t.Fatalf("the failed re-run's upload: %+v %v", up, err)
	}
	if after := chats(); !slices.Equal(after, before) {
		t.Fatalf("chats after the failed re-run %v, before %v", after, before)
	}
	var inView int
	if err := e.analystViews(t).QueryRowContext(ctx, `SELECT count(*) FROM conversations`).Scan(&inView); err != nil || inView != 2 {
		t.Fatalf("the conversations view has %d (%v)", inView, err)
	}
	if _, err := e.runner.Run(ctx, "compact"); err != nil {
		t.Fatal(err)
	}
	transcripts, err := e.reader.Transcripts(ctx, e.org.ID, mustInteractions(t, e, before))
	if err != nil || len(transcripts) != 2 {
		t.Fatalf("transcripts after compaction: %d %v", len(transcripts), err)
	}
}

func mustInteractions(t *testing.T, e *env, ids []string) []catalog.Interaction {
	t.Helper()
	its, err := e.cat.Interactions.Interactions(context.Background(), e.org.ID, catalog.InteractionFilter{IDs: ids, ExactIDs: true, Limit: len(ids)})
	if err != nil || len(its) != len(ids) {
		t.Fatalf("%d of %d interactions: %v", len(its), len(ids), err)
	}
	return its
}
