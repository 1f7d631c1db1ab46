package results

import (
	"context"
	"slices"
	"testing"
	"time"
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
		name   string
		nodes  []string
		agent  string
		result string
		least  int // matches at least (the case is not vacuous)
	}{
		{"all", nil, "", "true", 20}, {"region", tree.Descendants(org.Regions[0]), "", "true", 8}, {"agent", nil, "ag007", "true", 1},
		{"all, false", nil, "", "false", 20}, {"region, false", tree.Descendants(org.Regions[0]), "", "false", 8},
	} {
		var want []string
		for id, c := range rows.current(classifier) {
			if c.result == tc.result && (tc.nodes == nil || slices.Contains(tc.nodes, c.node)) && (tc.agent == "" || c.agent == "AG007") {
				want = append(want, id)
			}
		}
		slices.Sort(want)
		var got []string
		q := PageQuery{OrgID: org.ID, Window: window, NodeIDs: tc.nodes, Limit: 7}
		for {
			ids, err := r.Search(ctx, q, Search{ClassifierID: classifier, Result: tc.result, AgentCode: tc.agent})
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
			ids, err := r.Search(ctx, q, Search{ClassifierID: classifier, Result: tc.result, AgentCode: tc.agent, Newest: true, BeforeID: before})
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

// searchWindows cuts a range into windows that follow one another from
// the end it starts at, each longer than the one before, that together
// cover the range, and that stay apart once their bounds are cut to the
// lake's microseconds: no row in two windows, none in none.
func TestSearchWindows(t *testing.T) {
	midnight := time.Date(2025, 10, 1, 0, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		name     string
		from, to time.Time
		windows  int // in either direction
	}{
		{"92 days", midnight, midnight.AddDate(0, 0, 92).Add(-time.Microsecond), 7},
		{"a day", midnight, midnight.AddDate(0, 0, 1).Add(-time.Microsecond), 4},
		{"under an hour", midnight, midnight.Add(20 * time.Minute), 1},
		{"one instant", midnight, midnight, 1},
		{"bounds between microseconds", midnight.Add(500), midnight.AddDate(0, 0, 3).Add(250), 4},
		{"the whole calendar", time.Date(1, 1, 1, 0, 0, 0, 0, time.UTC), time.Date(9999, 12, 31, 23, 59, 59, 0, time.UTC), 45},
		{"ends before it starts", midnight, midnight.Add(-time.Hour), 0},
	} {
		for _, newest := range []bool{false, true} {
			w := Window{From: tc.from, To: tc.to}
			var got []Window
			for page := range searchWindows(w, newest) {
				got = append(got, page)
			}
			if len(got) != tc.windows {
				t.Fatalf("%s (newest %v): %d windows, want %d: %v", tc.name, newest, len(got), tc.windows, got)
			}
			if newest {
				slices.Reverse(got) // in time order from here on
			}
			micro := func(t time.Time) time.Time { return t.Truncate(time.Microsecond) }
			for i, page := range got {
				if page.To.Before(page.From) {
					t.Fatalf("%s (newest %v): window %d ends before it starts: %v", tc.name, newest, i, page)
				}
				if i > 0 && !micro(got[i-1].To).Add(time.Microsecond).Equal(micro(page.From)) {
					t.Fatalf("%s (newest %v): window %d does not follow the one before to the microsecond: %v then %v",
						tc.name, newest, i, got[i-1], page)
				}
			}
			if len(got) > 0 && (!got[0].From.Equal(w.From) || !got[len(got)-1].To.Equal(w.To)) {
				t.Fatalf("%s (newest %v): windows cover %v–%v, not the range", tc.name, newest, got[0].From, got[len(got)-1].To)
			}
			if len(got) > 2 { // the first one from the start is an hour, the next four times as long
				first, second := got[0], got[1]
				if newest {
					first, second = got[len(got)-1], got[len(got)-2]
				}
				if first.To.Sub(first.From) != time.Hour-time.Microsecond || second.To.Sub(second.From) != 4*time.Hour-time.Microsecond {
					t.Fatalf("%s (newest %v): first windows %v and %v", tc.name, newest, first, second)
				}
			}
		}
	}
}

// A search's later windows are cut to the days its result is found on.
func TestResultDaysNarrow(t *testing.T) {
	day := func(d, h int) time.Time { return time.Date(2025, 10, d, h, 0, 0, 0, time.UTC) }
	end := func(d int) time.Time { return day(d+1, 0).Add(-time.Microsecond) }
	found := &resultDays{days: []time.Time{day(2, 0), day(5, 0)}}
	for _, tc := range []struct {
		name     string
		days     *resultDays
		from, to time.Time
		want     Window // zero: no day of the window holds one
	}{
		{"a day before them", found, day(1, 0), end(1), Window{}},
		{"a day between them", found, day(3, 0), end(4), Window{}},
		{"a day after them", found, day(6, 0), end(9), Window{}},
		{"across the first", found, day(1, 12), day(3, 6), Window{From: day(2, 0), To: end(2)}},
		{"from within the first to within the last", found, day(2, 13), day(5, 1), Window{From: day(2, 13), To: day(5, 1)}},
		{"within the last", found, day(5, 3), day(5, 4), Window{From: day(5, 3), To: day(5, 4)}},
		{"across both", found, day(1, 0), end(9), Window{From: day(2, 0), To: end(5)}},
		{"every day", &resultDays{every: true}, day(1, 0), end(1), Window{From: day(1, 0), To: end(1)}},
	} {
		got, ok := tc.days.narrow(Window{From: tc.from, To: tc.to})
		if ok != !tc.want.From.IsZero() || ok && (!got.From.Equal(tc.want.From) || !got.To.Equal(tc.want.To)) {
			t.Errorf("%s: narrowed to %v (%v), want %v", tc.name, got, ok, tc.want)
		}
	}
}
