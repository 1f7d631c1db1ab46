package topics

import (
	"fmt"
	"io"

	"github.com/earshot/earshot/internal/lab/corpus"
)

// Grid is the mining settings Tune tries.
var Grid = func() []MineOptions {
	var out []MineOptions
	for _, minDocs := range []int{5, 20, 50} {
		for _, minPrec := range []float64{0.8, 0.9} {
			for _, fp := range []float64{1, 2, 4} {
				out = append(out, MineOptions{MaxWords: 3, MinDialogues: minDocs, MaxPhrases: 40, MinPrecision: minPrec, FalsePositive: fp})
			}
		}
	}
	return out
}()

// Tune picks the mining settings with the best macro F1 on a held-out
// fifth of the training dialogues (every fifth one), mining on the rest:
// the evaluation split is never looked at.
func Tune(train []corpus.Dialogue, log io.Writer) (MineOptions, error) {
	var fit, held []corpus.Dialogue
	for i, d := range train {
		if i%5 == 4 {
			held = append(held, d)
		} else {
			fit = append(fit, d)
		}
	}
	m := newMiner(fit, Grid[0].MaxWords) // every setting of the grid mines up to 3 words
	best, bestF1 := Grid[0], -1.0
	for _, opt := range Grid {
		set, err := PhraseSet(m.mine(opt))
		if err != nil {
			return MineOptions{}, err
		}
		report, err := Measure(set, held)
		if err != nil {
			return MineOptions{}, err
		}
		_, _, f1 := report.Macro()
		fmt.Fprintf(log, "  min dialogues %2d, min precision %.1f, false-positive weight %.0f: held-out macro F1 %.3f\n",
			opt.MinDialogues, opt.MinPrecision, opt.FalsePositive, f1)
		if f1 > bestF1 {
			best, bestF1 = opt, f1
		}
	}
	return best, nil
}

// Handwritten are topics for services the training split has no dialogue
// of (sgd-train has no Alarm dialogues), so nothing could be mined: the
// obvious words, written by hand.
var Handwritten = []Topic{{Service: "Alarm", Phrases: []string{"alarm", "alarms", "wake me up"}}}

// Build tunes on train, mines with the best settings on all of it and adds
// the handwritten topics of services it lacks.
func Build(train []corpus.Dialogue, log io.Writer) ([]Topic, MineOptions, error) {
	opt, err := Tune(train, log)
	if err != nil {
		return nil, opt, err
	}
	topics := Mine(train, opt)
	mined := map[string]bool{}
	for _, t := range topics {
		mined[t.Service] = true
	}
	for _, t := range Handwritten {
		if !mined[t.Service] {
			topics = append(topics, t)
		}
	}
	return topics, opt, nil
}
