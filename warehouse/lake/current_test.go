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
	cand := func(conv, classifier, run string) candidate[string] {
		return candidate[string]{conv: conv, classifier: classifier, run: run, row: conv + "/" + classifier + "@" + run}
	}
	rows := []candidate[string]{
		cand("c1", "k1", "r1"), cand("c1", "k1", "r2"), cand("c1", "k1", "r3"),
		cand("c1", "k2", "r1"), cand("c1", "k2", "r2"),
		cand("c1", "k3", "r1"), // only an older run's: not current
		cand("c2", "k1", "r1"), cand("c2", "k2", "r1"),
		cand("c3", "k1", "r9"),
	}
	runs := map[string]string{"c1": "r2", "c2": "r1"}
	want := map[string][]string{"c1": {"c1/k1@r3", "c1/k2@r2"}, "c2": {"c2/k1@r1", "c2/k2@r1"}}
	for name, order := range map[string][]candidate[string]{
		"sorted":   slices.Clone(rows),
		"reversed": func() []candidate[string] { r := slices.Clone(rows); slices.Reverse(r); return r }(),
	} {
		t.Run(name, func(t *testing.T) {
			got := (&Candidates[string]{rows: order}).Current(runs)
			if fmt.Sprint(got) != fmt.Sprint(want) {
				t.Fatalf("got %v, want %v", got, want)
			}
			// The same rule a row at a time: c1 twice (a batch's lake rows
			// of two runs), c4 not in the results at all.
			each := (&Candidates[string]{rows: slices.Clone(order)}).CurrentOfEach([]string{"c1", "c1", "c2", "c4"}, []string{"r2", "r1", "r1", "r1"})
			wantEach := [][]string{want["c1"], {"c1/k1@r3", "c1/k2@r2", "c1/k3@r1"}, want["c2"], nil}
			if fmt.Sprint(each) != fmt.Sprint(wantEach) {
				t.Fatalf("each: got %v, want %v", each, wantEach)
			}
		})
	}
}

// TestInOrder: sorted pieces handed over interleaved (as a join's threads
// do) are put back in order, and so are rows whose pieces overlap (files
// of re-runs) or come in no order at all.
func TestInOrder(t *testing.T) {
	sorted := make([]candidate[int], 3000)
	for i := range sorted {
		sorted[i] = candidate[int]{conv: fmt.Sprintf("c%04d", i/20), classifier: fmt.Sprintf("k%02d", i%20), run: "r1", row: i}
	}
	rng := rand.New(rand.NewPCG(1, 2))
	pieces := func(rows []candidate[int]) [][]candidate[int] {
		var out [][]candidate[int]
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
		overlapping = append(overlapping, candidate[int]{conv: sorted[i*15].conv, classifier: sorted[i*15].classifier, run: "r2", row: -i})
	}
	want := slices.Clone(overlapping)
	slices.SortFunc(want, compareCandidates[int])
	shuffled := slices.Clone(sorted)
	rng.Shuffle(len(shuffled), func(i, j int) { shuffled[i], shuffled[j] = shuffled[j], shuffled[i] })
	for name, c := range map[string]struct{ rows, want []candidate[int] }{
		"sorted":             {sorted, sorted},
		"interleaved pieces": {slices.Concat(pieces(sorted)...), sorted},
		"overlapping pieces": {slices.Concat(pieces(slices.Concat(sorted, overlapping[len(sorted):]))...), want},
		"no order":           {shuffled, sorted},
		"empty":              {nil, nil},
	} {
		t.Run(name, func(t *testing.T) {
			got := inOrder(slices.Clone(c.rows))
			if !slices.EqualFunc(got, c.want, func(a, b candidate[int]) bool { return compareCandidates(a, b) == 0 }) {
				t.Fatalf("not in order: %d rows, want %d", len(got), len(c.want))
			}
		})
	}
}

// BenchmarkInOrder: a hierarchy page's 20,000 result rows as a join hands
// them over, two sorted pieces whose ranges interleave, put in order by
// merging (inOrder) and by sorting.
func BenchmarkInOrder(b *testing.B) {
	var a, c []candidate[int]
	convs, classifiers := make([]string, 1000), make([]string, 20) // one copy of each, as readCandidates interns them
	for i := range convs {
		convs[i] = fmt.Sprintf("01999d11-a3bb-70c6-896b-%012d", i)
	}
	for i := range classifiers {
		classifiers[i] = fmt.Sprintf("01a1ffe2-b1d6-7aff-bb2f-%012d", i)
	}
	for i := range 20000 {
		conv := i / 20
		r := candidate[int]{conv: convs[conv], classifier: classifiers[i%20], run: "01a1ffe2-b90d-74fc-8e5a-0a3ee263c7e4", row: i}
		if conv/50%2 == 0 {
			a = append(a, r)
		} else {
			c = append(c, r)
		}
	}
	rows := slices.Concat(a, c)
	work := make([]candidate[int], len(rows))
	b.Run("merge", func(b *testing.B) {
		for b.Loop() {
			copy(work, rows)
			inOrder(work)
		}
	})
	b.Run("sort", func(b *testing.B) {
		for b.Loop() {
			copy(work, rows)
			slices.SortFunc(work, compareCandidates[int])
		}
	})
}
