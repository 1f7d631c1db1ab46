package lake

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
)

func TestCurrent(t *testing.T) {
	// Conversation c1 was ingested by run r2 (an older run r1 left rows
	// too); k1 was reclassified by r3. c2's run is r1. c3 is not on the
	// page.
	type cand struct{ conv, classifier, run string }
	rows := []cand{
		{"c1", "k1", "r1"}, {"c1", "k1", "r2"}, {"c1", "k1", "r3"},
		{"c1", "k2", "r1"}, {"c1", "k2", "r2"},
		{"c1", "k3", "r1"}, // only an older run's: not current
		{"c2", "k1", "r1"}, {"c2", "k2", "r1"},
		{"c3", "k1", "r9"},
	}
	candidates := func(rows []cand) *Candidates[string] {
		c := &Candidates[string]{}
		for _, r := range rows {
			c.Add(r.conv, r.run, r.classifier, r.conv+"/"+r.classifier+"@"+r.run)
		}
		return c
	}
	runs := map[string]string{"c1": "r2", "c2": "r1"}
	want := map[string][]string{"c1": {"c1/k1@r3", "c1/k2@r2"}, "c2": {"c2/k1@r1", "c2/k2@r1"}}
	for name, order := range map[string][]cand{
		"sorted":   rows,
		"reversed": func() []cand { r := slices.Clone(rows); slices.Reverse(r); return r }(),
	} {
		t.Run(name, func(t *testing.T) {
			got := candidates(order).Current(runs)
			if fmt.Sprint(got) != fmt.Sprint(want) {
				t.Fatalf("got %v, want %v", got, want)
			}
			// The same rule a row at a time: c1 twice (a batch's lake rows
			// of two runs), c4 not in the results at all.
			cands := candidates(order)
			each := cands.CurrentOfEach([]string{"c1", "c1", "c2", "c4"}, []string{"r2", "r1", "r1", "r1"})
			wantEach := [][]string{want["c1"], {"c1/k1@r3", "c1/k2@r2", "c1/k3@r1"}, want["c2"], nil}
			if fmt.Sprint(each) != fmt.Sprint(wantEach) {
				t.Fatalf("each: got %v, want %v", each, wantEach)
			}
			// Asked for in another order than the candidates', and for
			// conversations before and after all of theirs.
			shuffled := cands.CurrentOfEach([]string{"c4", "c2", "c1", "c0", "c1"}, []string{"r1", "r1", "r1", "r1", "r2"})
			wantShuffled := [][]string{nil, want["c2"], wantEach[1], nil, want["c1"]}
			if fmt.Sprint(shuffled) != fmt.Sprint(wantShuffled) {
				t.Fatalf("out of order: got %v, want %v", shuffled, wantShuffled)
			}
			// c2's rows are all current: handed out as they are, not
			// copied, and not to be appended to (c3's rows follow them).
			if c2 := each[2]; &c2[0] != &cands.rows[6] || cap(c2) != len(c2) {
				t.Fatalf("c2's rows copied, or with room after them (len %d, cap %d)", len(c2), cap(c2))
			}
		})
	}
}

// A slice of candidates shares their memory, and choosing from a sorted
// one moves none of their rows: another goroutine adds rows after it
// meanwhile (results.currentByRow).
func TestSliceOfCandidates(t *testing.T) {
	all := &Candidates[string]{}
	for _, r := range [][3]string{{"c1", "k1", "r1"}, {"c1", "k2", "r1"}, {"c2", "k1", "r1"}, {"c2", "k2", "r1"}, {"c2", "k1", "r2"}, {"c3", "k1", "r1"}} {
		all.Add(r[0], r[2], r[1], r[0]+"/"+r[1]+"@"+r[2])
	}
	before := slices.Clone(all.rows)
	for _, tc := range []struct {
		lo, hi int
		sorted bool
		want   [][]string // CurrentOfEach of c1, c2 (run r1) and c3
	}{
		{0, 2, true, [][]string{{"c1/k1@r1", "c1/k2@r1"}, nil, nil}},
		{0, 4, true, [][]string{{"c1/k1@r1", "c1/k2@r1"}, {"c2/k1@r1", "c2/k2@r1"}, nil}},
		{2, 5, false, [][]string{nil, {"c2/k1@r2", "c2/k2@r1"}, nil}}, // c2/k1 of r2 after its k2
		{5, 6, true, [][]string{nil, nil, {"c3/k1@r1"}}},
	} {
		slice := all.Slice(tc.lo, tc.hi)
		if slice.Sorted() != tc.sorted {
			t.Errorf("rows %d:%d sorted %v, want %v", tc.lo, tc.hi, !tc.sorted, tc.sorted)
		}
		if !tc.sorted {
			continue // choosing from it sorts it, in the shared memory
		}
		got := slice.CurrentOfEach([]string{"c1", "c2", "c3"}, []string{"r1", "r1", "r1"})
		if fmt.Sprint(got) != fmt.Sprint(tc.want) {
			t.Errorf("rows %d:%d: got %v, want %v", tc.lo, tc.hi, got, tc.want)
		}
		if !slices.Equal(all.rows, before) || cap(slice.rows) != tc.hi-tc.lo {
			t.Errorf("rows %d:%d moved the candidates' rows, or has room after it", tc.lo, tc.hi)
		}
	}
}

// Rows in sorted pieces are chosen from as if merged first: a
// conversation's rows in one piece or split over several, with rows of
// older and newer runs, asked for in order, again with another run, out
// of order, and not there at all; over one piece to more than mostPieces.
func TestCurrentOfEachInPieces(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	var sorted []candidateRow
	for conv := range 60 {
		for k := range 1 + conv%4 {
			for r := range 1 + (conv+k)%3 { // runs r0…r2
				key := candidateKey{conv: fmt.Sprintf("c%02d", conv), classifier: fmt.Sprintf("k%d", k), run: fmt.Sprintf("r%d", r)}
				sorted = append(sorted, candidateRow{key, len(sorted)})
			}
		}
	}
	var convs, runs []string
	for conv := range 62 { // c60 and c61 have no rows
		convs, runs = append(convs, fmt.Sprintf("c%02d", conv)), append(runs, fmt.Sprintf("r%d", conv%3))
		if conv%7 == 0 { // asked again with another run, as a batch's rows of two runs are
			convs, runs = append(convs, fmt.Sprintf("c%02d", conv)), append(runs, fmt.Sprintf("r%d", (conv+1)%3))
		}
	}
	shuffled := rng.Perm(len(convs))
	for pieces := 1; pieces <= mostPieces+2; pieces++ {
		// Each row to one of the pieces, each piece in order, the pieces
		// one after the other (a join's threads' outputs).
		split := make([][]candidateRow, pieces)
		for _, r := range sorted {
			p := rng.IntN(pieces)
			split[p] = append(split[p], r)
		}
		keys, rows := keysAndRows(slices.Concat(split...))
		wantKeys, wantRows := keysAndRows(sorted)
		for name, order := range map[string][]int{"in order": nil, "out of order": shuffled} {
			asked, askedRuns := convs, runs
			if order != nil {
				asked, askedRuns = make([]string, len(order)), make([]string, len(order))
				for i, j := range order {
					asked[i], askedRuns[i] = convs[j], runs[j]
				}
			}
			got := (&Candidates[int]{keys: slices.Clone(keys), rows: slices.Clone(rows)}).CurrentOfEach(asked, askedRuns)
			for i, conv := range asked {
				// The rule row by row: per classifier, the newest run not
				// older than the asked one.
				var want []int
				for j, k := range wantKeys {
					switch {
					case k.conv != conv || k.run < askedRuns[i]:
					case len(want) > 0 && wantKeys[j-1].classifier == k.classifier && wantKeys[j-1].run >= askedRuns[i]:
						want[len(want)-1] = wantRows[j] // a newer run of the same classifier
					default:
						want = append(want, wantRows[j])
					}
				}
				if !slices.Equal(got[i], want) {
					t.Fatalf("%d pieces, %s: %s of %s: got %v, want %v", pieces, name, conv, askedRuns[i], got[i], want)
				}
			}
		}
	}
}

// candidateRow is a test's candidate: its key and its row.
type candidateRow struct {
	key candidateKey
	row int
}

func keysAndRows(rows []candidateRow) ([]candidateKey, []int) {
	keys, out := make([]candidateKey, len(rows)), make([]int, len(rows))
	for i, r := range rows {
		keys[i], out[i] = r.key, r.row
	}
	return keys, out
}

// TestInOrder: sorted pieces handed over interleaved (as a join's threads
// do) are put back in order, and so are rows whose pieces overlap (files
// of re-runs) or come in no order at all; each row stays with its key.
func TestInOrder(t *testing.T) {
	sorted := make([]candidateRow, 3000)
	for i := range sorted {
		sorted[i] = candidateRow{candidateKey{conv: fmt.Sprintf("c%04d", i/20), classifier: fmt.Sprintf("k%02d", i%20), run: "r1"}, i}
	}
	rng := rand.New(rand.NewPCG(1, 2))
	pieces := func(rows []candidateRow) [][]candidateRow {
		var out [][]candidateRow
		for len(rows) > 0 {
			n := min(len(rows), 1+rng.IntN(700))
			out = append(out, rows[:n])
			rows = rows[n:]
		}
		rng.Shuffle(len(out), func(i, j int) { out[i], out[j] = out[j], out[i] })
		return out
	}
	overlapping := slices.Clone(sorted) // a re-run's rows of the same conversations, interleaved
	for i := range 200 {
		k := sorted[i*15].key
		k.run = "r2"
		overlapping = append(overlapping, candidateRow{k, -i})
	}
	byKey := func(a, b candidateRow) int { return compareKeys(a.key, b.key) }
	want := slices.Clone(overlapping)
	slices.SortFunc(want, byKey)
	shuffled := slices.Clone(sorted)
	rng.Shuffle(len(shuffled), func(i, j int) { shuffled[i], shuffled[j] = shuffled[j], shuffled[i] })
	for name, c := range map[string]struct{ rows, want []candidateRow }{
		"sorted":             {sorted, sorted},
		"interleaved pieces": {slices.Concat(pieces(sorted)...), sorted},
		"overlapping pieces": {slices.Concat(pieces(slices.Concat(sorted, overlapping[len(sorted):]))...), want},
		"no order":           {shuffled, sorted},
		"empty":              {nil, nil},
	} {
		t.Run(name, func(t *testing.T) {
			keys, rows := inOrder(keysAndRows(c.rows))
			wantKeys, wantRows := keysAndRows(c.want)
			if !slices.Equal(keys, wantKeys) || !slices.Equal(rows, wantRows) {
				t.Fatalf("not in order: %d rows, want %d", len(keys), len(wantKeys))
			}
		})
	}
}

// BenchmarkInOrder: a hierarchy page's 20,000 result rows as a join hands
// them over, two sorted pieces whose ranges interleave, put in order by
// merging (inOrder) and by sorting.
func BenchmarkInOrder(b *testing.B) {
	var a, c []candidateRow
	convs, classifiers := make([]string, 1000), make([]string, 20) // one copy of each, as readCandidates interns them
	for i := range convs {
		convs[i] = fmt.Sprintf("01999d11-a3bb-70c6-896b-%012d", i)
	}
	for i := range classifiers {
		classifiers[i] = fmt.Sprintf("01a1ffe2-b1d6-7aff-bb2f-%012d", i)
	}
	for i := range 20000 {
		conv := i / 20
		r := candidateRow{candidateKey{conv: convs[conv], classifier: classifiers[i%20], run: "01a1ffe2-b90d-74fc-8e5a-0a3ee263c7e4"}, i}
		if conv/50%2 == 0 {
			a = append(a, r)
		} else {
			c = append(c, r)
		}
	}
	keys, rows := keysAndRows(slices.Concat(a, c))
	workKeys, workRows := make([]candidateKey, len(keys)), make([]int, len(rows))
	b.Run("merge", func(b *testing.B) {
		for b.Loop() {
			copy(workKeys, keys)
			copy(workRows, rows)
			inOrder(workKeys, workRows)
		}
	})
	b.Run("sort", func(b *testing.B) {
		all := slices.Concat(a, c)
		work := make([]candidateRow, len(all))
		for b.Loop() {
			copy(work, all)
			slices.SortFunc(work, func(a, b candidateRow) int { return compareKeys(a.key, b.key) })
		}
	})
}

// BenchmarkCurrentOfEach chooses the current results of a page's 1,000
// conversations of 20 results each (rows of a page's size), asked for in
// id order: from rows in one sorted piece (a dense page's), and in two
// interleaved ones (a hierarchy page's join hands its threads' outputs
// over so).
func BenchmarkCurrentOfEach(b *testing.B) {
	type result struct {
		classifier, value string
		reasoning         *string
	}
	convs, classifiers := make([]string, 1000), make([]string, 20)
	for i := range convs {
		convs[i] = fmt.Sprintf("01999d11-a3bb-70c6-896b-%012d", i)
	}
	for i := range classifiers {
		classifiers[i] = fmt.Sprintf("01a1ffe2-b1d6-7aff-bb2f-%012d", i)
	}
	const run = "01a1ffe2-b90d-74fc-8e5a-0a3ee263c7e4"
	runs := slices.Repeat([]string{run}, len(convs))
	for _, pieces := range []int{1, 2} {
		b.Run(fmt.Sprintf("%d pieces", pieces), func(b *testing.B) {
			read := &Candidates[result]{}
			for p := range pieces {
				for conv := p * 50; conv < len(convs); conv += 50 * pieces { // runs of 50 conversations a piece
					for i := conv; i < min(conv+50, len(convs)); i++ {
						for _, k := range classifiers {
							read.Add(convs[i], run, k, result{k, "Yes", nil})
						}
					}
				}
			}
			keys, rows := make([]candidateKey, read.Len()), make([]result, read.Len())
			for b.Loop() {
				copy(keys, read.keys) // as read: choosing may sort them
				copy(rows, read.rows)
				c := &Candidates[result]{keys: keys, rows: rows}
				if each := c.CurrentOfEach(convs, runs); len(each[999]) != 20 {
					b.Fatalf("%d results of the last", len(each[999]))
				}
			}
		})
	}
}
