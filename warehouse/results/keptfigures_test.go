package results

import (
	"context"
	"math"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/earshot/earshot/internal/testlake"
	"github.com/earshot/earshot/warehouse/catalog"
)

// Figures kept in the catalog answer a process that has read nothing yet
// (a restart, another machine) without a statement on the lake, and give
// what the process that read them from the lake gave — also after re-run
// files join the first commit's clusters (read again, the former
// clusters' figures dropped). Figures that do not decode are read from
// the lake again and replaced.
func TestKeptFiguresServeAFreshReader(t *testing.T) {
	ctx := context.Background()
	l := newRerunLake(t, 5, 23)
	var ids []string
	for _, k := range l.org.Classifiers {
		ids = append(ids, k.ID)
	}
	q := PageQuery{OrgID: l.org.ID, Window: l.window}
	type answers struct {
		days          []Day
		teams, agents []Group
	}
	answer := func(r *Reader) answers {
		t.Helper()
		var a answers
		var err error
		if a.days, err = r.Daily(ctx, q, ids); err != nil {
			t.Fatal(err)
		}
		if a.teams, err = r.Groups(ctx, q, ByTeam, ids, 1000); err != nil {
			t.Fatal(err)
		}
		if a.agents, err = r.Groups(ctx, q, ByAgent, ids, 1000); err != nil {
			t.Fatal(err)
		}
		if len(a.days) != 3 || len(a.teams) < 3 {
			t.Fatalf("%d days and %d teams of the generated lake", len(a.days), len(a.teams))
		}
		// Scores are summed in any order by the lake's engine: means
		// agree to the ninth place.
		for _, g := range append(slices.Clip(a.teams), a.agents...) {
			for id, s := range g.Scores {
				if s.Mean != nil {
					m := math.Round(*s.Mean*1e9) / 1e9
					s.Mean = &m
					g.Scores[id] = s
				}
			}
		}
		return a
	}
	fresh := func() (*Reader, *testlake.Counting) {
		lk := &testlake.Counting{DB: l.engine}
		return &Reader{Manifest: l.cat.Manifest, Conversations: l.cat.Interactions, Lake: lk, Figures: l.cat.Manifest}, lk
	}
	keptRows := func() []catalog.KeptFigures {
		t.Helper()
		days := []time.Time{l.window.From, l.window.From.AddDate(0, 0, 1), l.window.From.AddDate(0, 0, 2)}
		kept, err := l.cat.Manifest.KeptFigures(ctx, l.org.ID, days)
		if err != nil {
			t.Fatal(err)
		}
		return kept
	}

	first := answer(l.reader)
	if n := len(keptRows()); n != 3 {
		t.Fatalf("%d figures kept for three days of one commit each", n)
	}
	r, lk := fresh()
	if got := answer(r); !reflect.DeepEqual(got, first) {
		t.Fatalf("a fresh reader's answers differ from the lake's:\n%+v\n%+v", got, first)
	}
	if n := lk.Statements(); n != 0 {
		t.Fatalf("a fresh reader ran %d statements on the lake for kept days", n)
	}

	l.rerun(t)
	again := answer(l.reader)
	if reflect.DeepEqual(again, first) {
		t.Fatal("the re-run changed no figure: the test proves nothing")
	}
	if n := len(keptRows()); n != 3 {
		t.Fatalf("%d figures kept after the re-run joined two days' files into one cluster each; want 3", n)
	}
	r, lk = fresh()
	if got := answer(r); !reflect.DeepEqual(got, again) || lk.Statements() != 0 {
		t.Fatalf("after the re-run a fresh reader ran %d statements and answered\n%+v\nnot\n%+v", lk.Statements(), got, again)
	}

	spoilt := keptRows()[0]
	spoilt.Figures = `{"cells": [["a", "b", "c"]], "conversations": []}`
	var signatures []string
	for _, k := range keptRows() {
		if k.Date.Equal(spoilt.Date) {
			signatures = append(signatures, k.Signature)
		}
	}
	if err := l.cat.Manifest.KeepFigures(ctx, l.org.ID, spoilt.Date, signatures, []catalog.KeptFigures{spoilt}); err != nil {
		t.Fatal(err)
	}
	r, lk = fresh()
	if got := answer(r); !reflect.DeepEqual(got, again) || lk.Statements() != 2 {
		t.Fatalf("with a day's figures spoilt a fresh reader ran %d statements (want the day's two) and answered\n%+v\nnot\n%+v", lk.Statements(), got, again)
	}
	r, lk = fresh()
	if answer(r); lk.Statements() != 0 {
		t.Fatal("the spoilt figures were not replaced")
	}
}

// A day's figures are the sum of its clusters', however its files group.
func TestClustersOfADay(t *testing.T) {
	file := func(path, table, lo, hi string) catalog.LakeFile {
		return catalog.LakeFile{Path: path, Table: table, MinID: lo, MaxID: hi}
	}
	for _, c := range []struct {
		name  string
		files []catalog.LakeFile
		want  [][]string
	}{
		{"one batch", []catalog.LakeFile{file("c1", "conversations", "a", "f"), file("r1", "classifier_results", "a", "f")}, [][]string{{"c1", "r1"}}},
		{"two batches", []catalog.LakeFile{file("c2", "conversations", "g", "k"), file("c1", "conversations", "a", "f"),
			file("r1", "classifier_results", "a", "f"), file("r2", "classifier_results", "g", "k")}, [][]string{{"c1", "r1"}, {"c2", "r2"}}},
		{"a reclassification across them", []catalog.LakeFile{file("c1", "conversations", "a", "f"), file("r1", "classifier_results", "a", "f"),
			file("c2", "conversations", "g", "k"), file("r2", "classifier_results", "g", "k"), file("r3", "classifier_results", "e", "h"),
			file("c3", "conversations", "m", "p")}, [][]string{{"c1", "r1", "r3", "c2", "r2"}, {"c3"}}},
		{"chunks split apart in each table", []catalog.LakeFile{file("c1a", "conversations", "a", "c"), file("c1b", "conversations", "d", "f"),
			file("r1a", "classifier_results", "a", "d"), file("r1b", "classifier_results", "e", "f")}, [][]string{{"c1a", "r1a", "c1b", "r1b"}}},
	} {
		t.Run(c.name, func(t *testing.T) {
			var got [][]string
			seen := map[string]bool{}
			for _, cl := range clustersOf(c.files) {
				got = append(got, catalog.Paths(cl.files))
				if cl.signature != signature(cl.files) || seen[cl.signature] {
					t.Fatalf("cluster %v: signature %s", catalog.Paths(cl.files), cl.signature)
				}
				seen[cl.signature] = true
			}
			if !reflect.DeepEqual(got, c.want) {
				t.Fatalf("clusters %v, want %v", got, c.want)
			}
		})
	}
}

// Kept figures read back as they were written.
func TestFiguresEncodeAndDecode(t *testing.T) {
	f := &dayFigures{
		cells:         []cell{{"n1", "a1", "Call"}, {"", "", "Chat"}},
		conversations: []int64{7, 3},
		results: map[string][]cellSums{
			"k1": {{0, resultSums{evaluated: 7, hits: 2, scored: 7, scoreSum: 0.1 + 0.2}}, {1, resultSums{evaluated: 3}}},
			"k2": {},
		},
	}
	s, err := encodeFigures(f)
	if err != nil {
		t.Fatal(err)
	}
	got, err := decodeFigures(s, newInterner())
	if err != nil {
		t.Fatal(err)
	}
	f.results["k2"] = []cellSums{}
	if !reflect.DeepEqual(got, f) {
		t.Fatalf("decoded %+v, want %+v (%s)", got, f, s)
	}
	for _, bad := range []string{`{`, `{"cells": [["a", "b", "c"]], "conversations": []}`,
		`{"cells": [["a", "b", "c"]], "conversations": [1], "results": {"k": {"cell": [1], "evaluated": [1], "hits": [0], "scored": [0], "score_sum": [0]}}}`,
		`{"cells": [], "conversations": [], "results": {"k": {"cell": [0, 0], "evaluated": [1]}}}`} {
		if _, err := decodeFigures(bad, newInterner()); err == nil {
			t.Errorf("%s decoded", bad)
		}
	}
}

// Whatever a catalog row holds, decoding it fails or gives figures whose
// every cell index is in range, and which read back as they were.
func FuzzDecodeFigures(f *testing.F) {
	f.Add(`{"cells": [["n", "a", "Chat"]], "conversations": [2], "results": {"k": {"cell": [0], "evaluated": [2], "hits": [1], "scored": [2], "score_sum": [0.5]}}}`)
	f.Add(`{"cells": [], "conversations": [], "results": {}}`)
	f.Add(`{"cells": [["a", "b", "c"]], "conversations": [1], "results": {"k": {"cell": [-1], "evaluated": [1], "hits": [0], "scored": [0], "score_sum": [0]}}}`)
	f.Fuzz(func(t *testing.T, s string) {
		d, err := decodeFigures(s, newInterner())
		if err != nil {
			return
		}
		if len(d.conversations) != len(d.cells) {
			t.Fatalf("%d cells, %d counts", len(d.cells), len(d.conversations))
		}
		for id, sums := range d.results {
			for _, x := range sums {
				if x.cell < 0 || x.cell >= len(d.cells) {
					t.Fatalf("classifier %s: cell %d of %d", id, x.cell, len(d.cells))
				}
			}
		}
		again, err := encodeFigures(d)
		if err != nil {
			return // a score sum JSON cannot hold
		}
		back, err := decodeFigures(again, newInterner())
		if err != nil || !reflect.DeepEqual(back, d) {
			t.Fatalf("%s read back as %+v (%v), not %+v", again, back, err, d)
		}
	})
}
