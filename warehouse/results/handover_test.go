package results

import (
	"cmp"
	"context"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"
	"testing/synctest"
)

// resultRow is a results row as a read hands it over.
type resultRow struct{ conv, run, classifier string }

// batchedRead is a read that adds rows to its candidates in batches of n,
// telling h as readCandidates does, and calls afterBatch after each.
func batchedRead(rows []resultRow, n int, afterBatch func()) func(*handOver[string]) (*Candidates[string], error) {
	return func(h *handOver[string]) (*Candidates[string], error) {
		out := &Candidates[string]{}
		var current string
		for i, r := range rows {
			if r.conv != current {
				current = r.conv
				h.startsConversation(current, out.Len())
			}
			out.Add(r.conv, r.run, r.classifier, r.conv+"/"+r.classifier+"/"+r.run)
			if (i+1)%n == 0 || i == len(rows)-1 {
				h.batchEnded(out)
				if afterBatch != nil {
					afterBatch()
				}
			}
		}
		return out, nil
	}
}

// resultsOf are rows' results as read all at once and chosen after.
func resultsOf(lake []Conversation, rows []resultRow) [][]string {
	all := &Candidates[string]{}
	for _, r := range rows {
		all.Add(r.conv, r.run, r.classifier, r.conv+"/"+r.classifier+"/"+r.run)
	}
	return CurrentOfEach(all, lake)
}

// byRowCalls records currentByRow's calls of each and applies them in
// turn, as a page does (a later call for rows replaces an earlier one's).
type byRowCalls struct {
	los     []int
	current [][]string
}

func (c *byRowCalls) each(lo int, current [][]string) {
	c.los = append(c.los, lo)
	copy(c.current[lo:], current)
}

// The rows of whole conversations are chosen while the read goes on, a
// range of rows at a time, and every row ends with the results chosen
// from all its rows at once; where the rows turn out to come out of
// order, all rows are chosen again after the read.
func TestCurrentByRowAsRead(t *testing.T) {
	t.Parallel()
	var lake []Conversation // the batch's lake rows, in id order
	var inOrder []resultRow
	for i := range 12 {
		id := fmt.Sprintf("c%02d", i)
		lake = append(lake, Conversation{ID: id, RunID: "r1"})
		if i == 4 {
			continue // a conversation without results
		}
		for _, k := range []string{"k1", "k2", "k3"} {
			inOrder = append(inOrder, resultRow{id, "r1", k})
		}
		if i == 7 { // processed again: its lake rows of both runs, and results of both
			lake = append(lake, Conversation{ID: id, RunID: "r2"})
			inOrder = append(inOrder, resultRow{id, "r2", "k1"}, resultRow{id, "r2", "k2"})
		}
	}
	slices.SortStableFunc(inOrder, func(a, b resultRow) int { // by conversation, classifier, run
		return cmp.Or(strings.Compare(a.conv, b.conv), strings.Compare(a.classifier, b.classifier))
	})
	// A re-run's file read after the first: c02's rows come again.
	overlapping := append(slices.Clone(inOrder), resultRow{"c02", "r2", "k1"})
	// c09's classifiers out of order (k1 after k3): not chosen from as
	// they come (it would move rows while others are read).
	var unsorted []resultRow
	for _, r := range inOrder {
		if r.conv == "c09" && r.classifier == "k1" {
			continue
		}
		unsorted = append(unsorted, r)
		if r.conv == "c09" && r.classifier == "k3" {
			unsorted = append(unsorted, resultRow{"c09", "r1", "k1"})
		}
	}
	for _, tc := range []struct {
		name    string
		rows    []resultRow
		inOrder bool
		// calls are each's calls: "ranges" in order from the first row,
		// "again" all rows once more at the end (the ones before were
		// chosen without some of their rows), "once" for all rows, "any"
		// as the goroutines' turns fall.
		calls string
	}{
		{"in order", inOrder, true, "ranges"},
		{"a conversation again after others", overlapping, true, "again"},
		{"a conversation's classifiers out of order", unsorted, true, "any"},
		{"not read in order (a sparse page)", inOrder, false, "once"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			for _, batch := range []int{1, 4, 7, len(tc.rows)} {
				calls := &byRowCalls{current: make([][]string, len(lake))}
				if err := currentByRow(lake, tc.inOrder, batchedRead(tc.rows, batch, nil), calls.each); err != nil {
					t.Fatal(err)
				}
				if want := resultsOf(lake, tc.rows); !slices.EqualFunc(calls.current, want, slices.Equal) {
					t.Errorf("batches of %d: chosen by row\n%v\nwant\n%v", batch, calls.current, want)
				}
				ascending := calls.los[0] == 0 && slices.IsSortedFunc(calls.los, func(a, b int) int { return cmp.Compare(a, b+1) })
				if ok := map[string]bool{"ranges": ascending, "again": calls.los[len(calls.los)-1] == 0,
					"once": slices.Equal(calls.los, []int{0}), "any": true}[tc.calls]; !ok {
					t.Errorf("batches of %d: each called from rows %v, want %s", batch, calls.los, tc.calls)
				}
			}
		})
	}
}

// The first whole conversations are chosen before the read ends: the read
// here waits after its first batch until they are, so choosing them only
// once the read ended would never end (synctest reports the deadlock).
func TestCurrentByRowChoosesBesideTheRead(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		lake := []Conversation{{ID: "a", RunID: "r1"}, {ID: "b", RunID: "r1"}, {ID: "c", RunID: "r1"}}
		rows := []resultRow{{"a", "r1", "k1"}, {"b", "r1", "k1"}, {"b", "r1", "k2"}, {"c", "r1", "k1"}}
		chosen := make(chan struct{})
		first := true
		read := batchedRead(rows, 2, func() {
			if first {
				first = false
				<-chosen // a's rows are whole: chosen beside the read
			}
		})
		calls := &byRowCalls{current: make([][]string, len(lake))}
		err := currentByRow(lake, true, read, func(lo int, current [][]string) {
			calls.each(lo, current)
			if lo == 0 {
				close(chosen)
			}
		})
		if err != nil {
			t.Fatal(err)
		}
		if want := resultsOf(lake, rows); !slices.EqualFunc(calls.current, want, slices.Equal) {
			t.Errorf("chosen by row %v, want %v", calls.current, want)
		}
	})
}

// A batch's results chosen by row as DuckDB hands them over are those
// chosen from all of them once read: a dense batch whose results DuckDB
// hands over in several batches of its own, a sparse one (a hierarchy
// filter), and both again over the files of a re-run not yet compacted,
// for classifier and model results.
func TestResultsByRowMatchThoseChosenOnceRead(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	l := newRerunLake(t, 10, 23) // 300 conversations of ten results: more than one of DuckDB's batches
	var ids []string
	for _, k := range l.org.Classifiers {
		ids = append(ids, k.ID)
	}
	tree, err := l.cat.People.Hierarchy(ctx, l.org.ID)
	if err != nil {
		t.Fatal(err)
	}
	for _, rerun := range []bool{false, true} {
		if rerun {
			l.rerun(t)
		}
		for _, nodes := range [][]string{nil, tree.Descendants(l.org.Regions[0])} {
			q := PageQuery{OrgID: l.org.ID, Window: l.window, NodeIDs: nodes, Limit: 1000}
			files, err := l.reader.conversationFiles(ctx, q)
			if err != nil {
				t.Fatal(err)
			}
			rows, _, err := l.reader.lakeConversations(ctx, q, files, "", 1000)
			if err != nil || len(rows) < 50 {
				t.Fatalf("%d lake rows: %v", len(rows), err)
			}
			name := fmt.Sprintf("re-run %v, hierarchy %v", rerun, nodes != nil)
			classifierCands, err := l.reader.ClassifierCandidates(ctx, q, rows, ids)
			if err != nil {
				t.Fatal(err)
			}
			calls := checkByRow(t, name+", classifier results", rows, CurrentOfEach(classifierCands, rows), func(each func(int, [][]ClassifierResult)) error {
				return l.reader.ClassifierResultsByRow(ctx, q, rows, ids, each)
			})
			if !rerun && nodes == nil && calls < 2 {
				t.Errorf("%s: the results chosen in %d range, not as DuckDB handed them over", name, calls)
			}
			modelCands, err := l.reader.ModelCandidates(ctx, q, rows, ids)
			if err != nil {
				t.Fatal(err)
			}
			checkByRow(t, name+", model results", rows, CurrentOfEach(modelCands, rows), func(each func(int, [][]ModelResult)) error {
				return l.reader.ModelResultsByRow(ctx, q, rows, ids, each)
			})
		}
	}
}

// checkByRow checks that byRow hands each of rows its results in want,
// every row's last, and returns how many times it called each.
func checkByRow[T any](t *testing.T, name string, rows []Conversation, want [][]T, byRow func(each func(int, [][]T)) error) (calls int) {
	t.Helper()
	got := make([][]T, len(rows))
	if err := byRow(func(lo int, current [][]T) { copy(got[lo:], current); calls++ }); err != nil {
		t.Fatal(err)
	}
	results := 0
	for i := range rows {
		if !reflect.DeepEqual(got[i], want[i]) {
			t.Fatalf("%s: row %d (%s, run %s) has %v, want %v", name, i, rows[i].ID, rows[i].RunID, got[i], want[i])
		}
		results += len(got[i])
	}
	if results < len(rows) {
		t.Fatalf("%s: %d results for %d rows", name, results, len(rows))
	}
	return calls
}
