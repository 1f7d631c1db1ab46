package results

import (
	"context"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/earshot/earshot/internal/lab/lakegen"
	"github.com/earshot/earshot/internal/testlake"
	"github.com/earshot/earshot/warehouse/catalog"
	"github.com/earshot/earshot/warehouse/lake"
)

// reprocessing is the catalog with some conversations being processed
// again: their lake rows are not current until the new run commits, so the
// check drops them.
type reprocessing struct {
	Conversations
	again map[string]bool
}

func (r reprocessing) ConversationStates(ctx context.Context, orgID string, ids []string, sparse bool) (map[string]catalog.ConversationState, error) {
	states, err := r.Conversations.ConversationStates(ctx, orgID, ids, sparse)
	for id, s := range states {
		if r.again[id] {
			s.Status = catalog.StatusProcessing
			states[id] = s
		}
	}
	return states, err
}

// Pages over files that do not overlap read one row beyond what they need
// (batchSlack): where the catalog check drops rows, a page reads on until
// it is full, and a walk of pages returns every conversation the check
// keeps, once, in id order.
func TestPagesFillPastDroppedRows(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	cat, bucket, dir := testlake.New(t)
	o := lakegen.Options{Orgs: 1, Conversations: 400, Days: 2, Classifiers: 2,
		Start: time.Date(2025, 10, 1, 0, 0, 0, 0, time.UTC), Seed: 5}
	orgs, err := lakegen.Generate(ctx, cat, &lake.Writer{Bucket: bucket}, o)
	if err != nil {
		t.Fatal(err)
	}
	engine := testlake.Engine(t, filepath.Join(dir, "bucket"))
	q := PageQuery{OrgID: orgs[0].ID, Window: Window{From: o.Start, To: o.Start.AddDate(0, 0, o.Days)}}
	files, err := (&Reader{Manifest: cat.Manifest}).conversationFiles(ctx, q)
	if err != nil || batchSlack(files, 26) != 1 {
		t.Fatalf("the lake's files overlap (%v): the test would not read pages without slack", err)
	}
	walk := func(r *Reader, limit int) []string {
		var ids []string
		q := q
		q.Limit = limit
		for {
			page, more, err := r.Page(ctx, q, nil)
			if err != nil {
				t.Fatal(err)
			}
			if more && len(page) != limit {
				t.Fatalf("a page of %d before the last, want %d", len(page), limit)
			}
			for _, c := range page {
				ids = append(ids, c.ID)
			}
			if !more {
				return ids
			}
			q.AfterID = page[len(page)-1].ID
		}
	}
	all := walk(&Reader{Manifest: cat.Manifest, Conversations: cat.Interactions, Lake: engine}, 1000)
	if len(all) < 350 {
		t.Fatalf("%d conversations in the lake", len(all))
	}
	// Every third of the first hundred, and a run of 70 in a row: more
	// than a batch's slack and than a batch's fewest rows.
	again := map[string]bool{}
	for i, id := range all {
		if i < 100 && i%3 == 0 || i >= 150 && i < 220 {
			again[id] = true
		}
	}
	var want []string
	for _, id := range all {
		if !again[id] {
			want = append(want, id)
		}
	}
	r := &Reader{Manifest: cat.Manifest, Conversations: reprocessing{cat.Interactions, again}, Lake: engine}
	for _, limit := range []int{1, 25, 64, 1000} {
		if got := walk(r, limit); !slices.Equal(got, want) {
			t.Errorf("pages of %d: %d conversations, want %d", limit, len(got), len(want))
		}
	}
}
