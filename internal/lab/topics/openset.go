package topics

import (
	"fmt"
	"io"
	"slices"

	"github.com/earshot/earshot/internal/lab/corpus"
	"github.com/earshot/earshot/pipeline/analysis/trained"
)

// SureShares are the shares of a label's positives reaching its sure
// level that the open-set validation compares.
var SureShares = []float64{0.5, 0.6, 0.7, 0.8, 0.85, 0.9, 0.95, 0.98, 1}

// openSetFold is one validation of OpenSet: classifiers trained on fit,
// measured on held.
type openSetFold struct {
	name      string
	fit, held []corpus.Dialogue
}

// OpenSet chooses the sure share on the training split alone, the way
// the open-set figure is measured on another split: the services of
// holdOut are left out of training and stand only as their handwritten
// topics, taking their conversations from the trained set. It validates
// two ways, each trained once and measured at every one of SureShares:
//
//   - a random fifth: every fifth dialogue held out, the rest trains;
//   - held-out intents: for each of ShiftGroups (but a held-out
//     service's), its dialogues held out with every fifth dialogue of the
//     held-out services, the rest trains.
//
// Random folds share wording with training, so the trained models look
// surer there than on new conversations (the figures of `--group-by-intent`
// say how much); the share is chosen on the held-out intents: the one
// giving most of their dialogues exactly their labels, the smaller share on
// a tie. The split measured on afterwards is never looked at.
func OpenSet(w io.Writer, train []corpus.Dialogue, holdOut []string, opt trained.Options) (float64, error) {
	var random openSetFold
	random.name = "a random fifth"
	for i, d := range train {
		if i%5 == 4 {
			random.held = append(random.held, d)
		} else {
			random.fit = append(random.fit, d)
		}
	}
	var err error
	if random.fit, err = HoldOut(random.fit, holdOut); err != nil {
		return 0, err
	}
	var heldOutFifth []corpus.Dialogue
	for i, d := range train {
		if ofAny(d, holdOut) && i%5 == 4 {
			heldOutFifth = append(heldOutFifth, d)
		}
	}
	var intents []openSetFold
	for _, group := range ShiftGroups {
		f := openSetFold{name: group, held: slices.Clone(heldOutFifth)}
		for _, d := range train {
			switch {
			case ofAny(d, holdOut):
			case slices.Contains(d.Intents, group):
				f.held = append(f.held, d)
			default:
				f.fit = append(f.fit, d)
			}
		}
		if len(f.held) > len(heldOutFifth) { // a held-out service's intent has none left
			intents = append(intents, f)
		}
	}

	fmt.Fprintf(w, "open-set validation on the training split, %v left out of training and given their handwritten topics, which take\n", holdOut)
	randomExact, err := openSetExact(w, []openSetFold{random}, opt)
	if err != nil {
		return 0, err
	}
	intentExact, err := openSetExact(w, intents, opt)
	if err != nil {
		return 0, err
	}
	fmt.Fprintf(w, "\n%-10s  %-26s  %s\n", "sure share", "exact label set: "+random.name, "held-out intents (all)")
	best := 0
	for k, share := range SureShares {
		fmt.Fprintf(w, "%-10.2f  %-26s  %d\n", share, fmt.Sprintf("%d of %d", randomExact[k], len(random.held)), intentExact[k])
		if intentExact[k] > intentExact[best] {
			best = k
		}
	}
	fmt.Fprintf(w, "chosen on the held-out intents: sure share %.2f\n", SureShares[best])
	return SureShares[best], nil
}

// openSetExact trains on each fold's fit once and counts, for each of
// SureShares, the dialogues of the folds' held parts given exactly their
// labels, printing each fold's figures.
func openSetExact(w io.Writer, folds []openSetFold, opt trained.Options) ([]int, error) {
	exact := make([]int, len(SureShares))
	for _, f := range folds {
		t, err := trained.Train(Examples(f.fit), opt)
		if err != nil {
			return nil, err
		}
		fmt.Fprintf(w, "%-24s trained on %5d, measured on %4d: exact label set", f.name, len(f.fit), len(f.held))
		for k, share := range SureShares {
			models := make([]*trained.Model, len(t.Models))
			for i, m := range t.Models {
				if models[i], err = m.WithSureShare(share); err != nil {
					return nil, err
				}
			}
			set, err := Set(TrainedClassifiers(models, true))
			if err != nil {
				return nil, err
			}
			r, err := Measure(set, f.held)
			if err != nil {
				return nil, err
			}
			exact[k] += r.Exact
			fmt.Fprintf(w, " %.3f", r.ExactRate())
		}
		fmt.Fprintln(w)
	}
	return exact, nil
}
