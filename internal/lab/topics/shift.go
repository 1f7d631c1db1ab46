package topics

import (
	"fmt"
	"io"
	"slices"

	"github.com/earshot/earshot/internal/lab/corpus"
	"github.com/earshot/earshot/pipeline/analysis/trained"
)

// ShiftGroups are the intents whose dialogues the shift validation holds
// out, one at a time: each is one way of a service's (a house to rent
// beside hotel rooms, a song beside music by artist, a movie to stream, a
// round trip, a provider to find, event dates, a bus to find) that the
// rest of the training split still has other dialogues of.
var ShiftGroups = []string{"BookHouse", "LookupSong", "PlayMovie", "ReserveRoundtripFlights", "FindProvider", "GetEventDates", "FindBus"}

// Shift measures how trained classifiers generalise to wording the
// training data lacks, on the training split alone: for each group, every
// dialogue with its intent is held out, the models are trained on the
// rest and measured on it. Cross-validation over random folds sees every
// service's wording in training and scores near 1, so it cannot choose
// between features or penalties; this is what did, and the evaluation
// split was never looked at for it.
func Shift(w io.Writer, train []corpus.Dialogue, opt trained.Options) error {
	fmt.Fprintf(w, "%-24s %6s  %-22s  %s\n", "held-out intent", "held", "macro P / R / F1", "exact label set")
	var sumF1, sumExact float64
	for _, group := range ShiftGroups {
		var fit, held []corpus.Dialogue
		for _, d := range train {
			if slices.Contains(d.Intents, group) {
				held = append(held, d)
			} else {
				fit = append(fit, d)
			}
		}
		t, err := trained.Train(Examples(fit), opt)
		if err != nil {
			return err
		}
		set, err := Set(TrainedClassifiers(t.Models, false))
		if err != nil {
			return err
		}
		r, err := Measure(set, held)
		if err != nil {
			return err
		}
		p, rec, f := r.Macro()
		fmt.Fprintf(w, "%-24s %6d  %5.3f / %5.3f / %5.3f   %5.3f\n", group, len(held), p, rec, f, r.ExactRate())
		sumF1, sumExact = sumF1+f, sumExact+r.ExactRate()
	}
	n := float64(len(ShiftGroups))
	fmt.Fprintf(w, "%-24s %6s  %-22s  %5.3f\n", "mean", "", fmt.Sprintf("F1 %5.3f", sumF1/n), sumExact/n)
	return nil
}
