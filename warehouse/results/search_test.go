package results

import (
	"context"
	"slices"
	"testing"
)

// Search by a classifier's result, page after page, finds exactly the
// conversations whose current result it is (the rule applied in Go to
// every row), with re-run files overlapping the first commit's, for the
// whole organization and one region, with and without an agent.
func TestSearchMatchesEveryRow(t *testing.T) {
	ctx := context.Background()
	l := newRerunLake(t, 3, 21)
	l.rerun(t)
	cat, org, r, window := l.cat, l.org, l.reader, l.window
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
		// Newest first, page after page: the same, from the last.
		got, q.AfterID = nil, ""
		for before := ""; ; {
			ids, err := r.Search(ctx, q, Search{ClassifierID: classifier, Result: "true", AgentCode: tc.agent, Newest: true, BeforeID: before})
			if err != nil {
				t.Fatal(err)
			}
			got = append(got, ids...)
			if len(ids) < q.Limit {
				break
			}
			before = ids[len(ids)-1]
		}
		slices.Reverse(want)
		if !slices.Equal(got, want) {
			t.Fatalf("%s: newest first, Search found %d conversations, every row gives %d", tc.name, len(got), len(want))
		}
	}
}
