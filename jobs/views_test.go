package jobs

import (
	"context"
	"slices"
	"testing"

	"github.com/earshot/earshot/warehouse/analyst"
	"github.com/earshot/earshot/warehouse/catalog"
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
	defer db.Close()
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
