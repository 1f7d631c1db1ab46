package results

import (
	"fmt"
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
	convs := []Conversation{{ID: "c1", RunID: "r2"}, {ID: "c2", RunID: "r1"}}
	want := map[string][]string{"c1": {"c1/k1@r3", "c1/k2@r2"}, "c2": {"c2/k1@r1", "c2/k2@r1"}}
	for name, order := range map[string][]candidate[string]{
		"sorted":   slices.Clone(rows),
		"reversed": func() []candidate[string] { r := slices.Clone(rows); slices.Reverse(r); return r }(),
	} {
		t.Run(name, func(t *testing.T) {
			got := (&Candidates[string]{rows: order}).Current(convs)
			if fmt.Sprint(got) != fmt.Sprint(want) {
				t.Fatalf("got %v, want %v", got, want)
			}
		})
	}
}
