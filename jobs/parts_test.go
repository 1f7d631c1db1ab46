package jobs

import (
	"context"
	"fmt"
	"maps"
	"sync/atomic"
	"testing"
	"time"

	"github.com/earshot/earshot/pipeline"
	"github.com/earshot/earshot/warehouse/catalog"
	"github.com/earshot/earshot/warehouse/results"
)

// losesLease is the catalog's uploads, except that the second part of an
// archive to be committed finds its lease taken over (another worker
// claimed the upload after this one stalled).
type losesLease struct {
	Uploads
	parts atomic.Int32
}

func (l *losesLease) CommitIngest(ctx context.Context, ic catalog.IngestCommit) error {
	for _, o := range ic.Outcomes {
		if o.Partial && l.parts.Add(1) == 2 {
			return catalog.ErrLeaseLost
		}
	}
	return l.Uploads.CommitIngest(ctx, ic)
}

// An archive larger than a part is committed in parts. When its lease is
// lost between two parts, the batch's other uploads still commit, the
// archive stays Processing with the chats of its committed part, and the
// worker that takes it over replaces them: each chat is counted once, by
// the catalog, the API's total and the analysts' views, and keeps its id
// when processed again.
func TestArchiveCommittedInParts(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	var job *Ingest
	e := newEnv(t, func(j *Ingest) {
		chats := j.Processors[0].(pipeline.Chats)
		chats.PartChats = 2
		j.Processors[0] = chats
		job = j
	})
	files := map[string]string{}
	for i := range 7 {
		files[fmt.Sprintf("c/%d.json", i)] = earshotChat
	}
	archive := e.stage(t, "big.tar", tarOf(t, files, ""))
	single := e.stage(t, "single.json", []byte(earshotChat))
	catalogUploads := job.Uploads
	job.Uploads = &losesLease{Uploads: catalogUploads}
	if _, err := e.runner.Run(ctx, "ingest"); err != nil {
		t.Fatal(err)
	}
	status := func(id string) string {
		t.Helper()
		it, err := e.cat.Interactions.Interaction(ctx, e.org.ID, id)
		if err != nil {
			t.Fatal(err)
		}
		return it.Status
	}
	chatIDs := func() map[string]string {
		t.Helper()
		ids, err := e.cat.Interactions.ChatIDs(ctx, e.org.ID, archive)
		if err != nil {
			t.Fatal(err)
		}
		return ids
	}
	if s := status(single); s != catalog.StatusReadyToSample {
		t.Fatalf("the batch's single chat is %s", s)
	}
	firstPart := chatIDs()
	if s := status(archive); s != catalog.StatusProcessing || len(firstPart) != 2 {
		t.Fatalf("after the lost lease the archive is %s with %d chats, want Processing with its first part's 2", s, len(firstPart))
	}

	// The lease runs out; a worker takes the archive over.
	job.Uploads = catalogUploads
	if _, err := e.sql.ExecContext(ctx, `UPDATE interactions SET lease_expires = ? WHERE id = ?`, time.Now().Add(-time.Hour).UTC(), archive); err != nil {
		t.Fatal(err)
	}
	run, err := e.runner.Run(ctx, "ingest")
	if err != nil {
		t.Fatal(err)
	}
	if run.Counts["uploads"] != 1 || run.Counts["conversations"] != 7 {
		t.Fatalf("the run taking the archive over counted %v", run.Counts)
	}
	taken := chatIDs()
	if s := status(archive); s != catalog.StatusReadyToSample || len(taken) != 7 {
		t.Fatalf("taken over, the archive is %s with %d chats", s, len(taken))
	}
	for name, id := range firstPart {
		if taken[name] != id {
			t.Fatalf("%s was %s in the first part and is %s now", name, id, taken[name])
		}
	}
	e.assertCounted(t, 8)

	// Processed again, whole: the same chats, counted once.
	if _, err := e.sql.ExecContext(ctx, `UPDATE interactions SET status = 'Processing' WHERE id = ?`, archive); err != nil {
		t.Fatal(err)
	}
	if _, err := e.runner.Run(ctx, "ingest"); err != nil {
		t.Fatal(err)
	}
	if again := chatIDs(); !maps.Equal(again, taken) {
		t.Fatalf("processed again, the archive's chats are %v, were %v", again, taken)
	}
	e.assertCounted(t, 8)
}

// assertCounted checks that the API's total and the analysts' view count
// want conversations.
func (e *env) assertCounted(t *testing.T, want int64) {
	t.Helper()
	ctx := context.Background()
	today := time.Now().UTC().Truncate(24 * time.Hour)
	q := results.PageQuery{OrgID: e.org.ID, Window: results.Window{From: today.AddDate(0, 0, -1), To: today.AddDate(0, 0, 2).Add(-time.Microsecond)}, Limit: 100}
	total, err := e.reader.Count(ctx, q, nil)
	if err != nil {
		t.Fatal(err)
	}
	var inSQL int64
	if err := e.analystViews(t).QueryRowContext(ctx, `SELECT count(*) FROM conversations`).Scan(&inSQL); err != nil {
		t.Fatal(err)
	}
	if total != want || inSQL != want {
		t.Fatalf("the API counts %d conversations, the analysts' view %d; want %d", total, inSQL, want)
	}
}
