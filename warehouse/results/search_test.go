package results

import (
	"context"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/earshot/earshot/internal/lab/lakegen"
	"github.com/earshot/earshot/internal/testlake"
	"github.com/earshot/earshot/warehouse/lake"
)

// Search by a classifier's result, page after page, finds exactly the
// conversations whose current result it is (the rule applied in Go to
// every row), with re-run files overlapping the first commit's, for the
// whole organization and one region, with and without an agent.
func TestSearchMatchesEveryRow(t *testing.T) {
	ctx := context.Background()
	cat, bucket, dir := testlake.New(t)
	w := &lake.Writer{Bucket: bucket}
	o := lakegen.Options{Orgs: 1, Conversations: 300, Days: 3, Classifiers: 3,
		Start: time.Date(2025, 10, 1, 0, 0, 0, 0, time.UTC), Seed: 21}
	orgs, err := lakegen.Generate(ctx, cat, w, o)
	if err != nil {
		t.Fatal(err)
	}
	again := o
	again.Seed, again.Days, again.Conversations = 22, 2, 80
	if err := lakegen.Commit(ctx, cat, w, orgs, again); err != nil {
		t.Fatal(err)
	}
	org := orgs[0]
	r := &Reader{Manifest: cat.Manifest, Conversations: cat.Interactions, Lake: testlake.Engine(t, filepath.Join(dir, "bucket"))}
	window := Window{From: o.Start, To: o.Start.AddDate(0, 0, o.Days).Add(-time.Microsecond)}
	tree, err := cat.People.Hierarchy(ctx, org.ID)
	if err != nil {
		t.Fatal(err)
	}
	classifier := org.Classifiers[0].ID
	rows := allRows(t, r, org.ID, window)
	for _, tc := range []struct {
		name  string
		nodes []string
		agent string
		least int // matches at least (the case is not vacuous)
	}{{"all", nil, "", 20}, {"region", tree.Descendants(org.Regions[0]), "", 8}, {"agent", nil, "ag007", 1}} {
		var want []string
		for id, c := range rows.current(classifier) {
			if c.result == "true" && (tc.nodes == nil || slices.Contains(tc.nodes, c.node)) && (tc.agent == "" || c.agent == "AG007") {
				want = append(want, id)
			}
		}
		slices.Sort(want)
		var got []string
		q := PageQuery{OrgID: org.ID, Window: window, NodeIDs: tc.nodes, Limit: 7}
		for {
			ids, err := r.Search(ctx, q, Search{ClassifierID: classifier, Result: "true", AgentCode: tc.agent})
			if err != nil {
				t.Fatal(err)
			}
			got = append(got, ids...)
			if len(ids) < q.Limit {
				break
			}
			q.AfterID = ids[len(ids)-1]
		}
		if !slices.Equal(got, want) || len(want) < tc.least {
			t.Fatalf("%s: Search found %d conversations, every row gives %d", tc.name, len(got), len(want))
		}
	}
}
