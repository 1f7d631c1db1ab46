package topics

import (
	"fmt"
	"io"
	"slices"

	"github.com/earshot/earshot/internal/lab/corpus"
	"github.com/earshot/earshot/pipeline/analysis"
	"github.com/earshot/earshot/pipeline/analysis/phrase"
)

// Score is a topic's confusion counts over a split.
type Score struct {
	Service                string
	TruePos, FalsePos, Neg int
	FalseNeg               int
}

// Precision, Recall and F1 of the topic.
func (s Score) Precision() float64 { return ratio(s.TruePos, s.TruePos+s.FalsePos) }
func (s Score) Recall() float64    { return ratio(s.TruePos, s.TruePos+s.FalseNeg) }
func (s Score) F1() float64 {
	p, r := s.Precision(), s.Recall()
	if p+r == 0 {
		return 0
	}
	return 2 * p * r / (p + r)
}

func ratio(a, b int) float64 {
	if b == 0 {
		return 0
	}
	return float64(a) / float64(b)
}

// Conversation is a dialogue as classifiers read it (a chat without
// timestamps).
func Conversation(d corpus.Dialogue) *analysis.Conversation {
	c := &analysis.Conversation{ID: d.ID, Turns: make([]analysis.Turn, 0, len(d.Turns))}
	for _, t := range d.Turns {
		c.Turns = append(c.Turns, analysis.Turn{Speaker: t.Participant(), Text: t.Text})
	}
	return c
}

// Measure compiles the topics as phrase classifiers, runs them as one set
// over the dialogues and scores each against the labels.
func Measure(topics []Topic, dialogues []corpus.Dialogue) ([]Score, error) {
	var classifiers []*phrase.Classifier
	for _, t := range topics {
		c, err := phrase.Compile(t.Definition())
		if err != nil {
			return nil, fmt.Errorf("topic %s: %w", t.Service, err)
		}
		classifiers = append(classifiers, c)
	}
	ix := phrase.NewIndex(classifiers)
	scores := make([]Score, len(topics))
	for k, t := range topics {
		scores[k].Service = t.Service
	}
	for _, d := range dialogues {
		conv := Conversation(d)
		hits := ix.Scan(conv)
		for k, t := range topics {
			got := *ix.Evaluate(k, conv, hits).Bool
			want := slices.Contains(d.Services, t.Service)
			switch {
			case got && want:
				scores[k].TruePos++
			case got:
				scores[k].FalsePos++
			case want:
				scores[k].FalseNeg++
			default:
				scores[k].Neg++
			}
		}
	}
	return scores, nil
}

// Labelled reports whether the split has dialogues of the topic at all.
func (s Score) Labelled() bool { return s.TruePos+s.FalseNeg > 0 }

// Macro is the unweighted mean precision, recall and F1 over the topics
// the split has dialogues of.
func Macro(scores []Score) (p, r, f1 float64) {
	n := 0
	for _, s := range scores {
		if !s.Labelled() {
			continue
		}
		p += s.Precision()
		r += s.Recall()
		f1 += s.F1()
		n++
	}
	d := float64(max(n, 1))
	return p / d, r / d, f1 / d
}

// WriteTable prints the scores of each split side by side.
func WriteTable(w io.Writer, names []string, splits [][]Score) {
	fmt.Fprintf(w, "%-12s", "service")
	for _, n := range names {
		fmt.Fprintf(w, " | %-24s", n+": P / R / F1")
	}
	fmt.Fprintln(w)
	for i := range splits[0] {
		fmt.Fprintf(w, "%-12s", splits[0][i].Service)
		for _, s := range splits {
			if !s[i].Labelled() {
				fmt.Fprintf(w, " | %-24s", "no dialogues")
				continue
			}
			fmt.Fprintf(w, " | %5.3f / %5.3f / %5.3f  ", s[i].Precision(), s[i].Recall(), s[i].F1())
		}
		fmt.Fprintln(w)
	}
	fmt.Fprintf(w, "%-12s", "macro")
	for _, s := range splits {
		p, r, f := Macro(s)
		fmt.Fprintf(w, " | %5.3f / %5.3f / %5.3f  ", p, r, f)
	}
	fmt.Fprintln(w)
}
