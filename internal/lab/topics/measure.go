package topics

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"slices"

	"github.com/earshot/earshot/internal/lab/corpus"
	"github.com/earshot/earshot/pipeline/analysis"
	"github.com/earshot/earshot/pipeline/analysis/registry"
)

// Score is one service's confusion counts over a split. Classified says
// whether the set had a classifier of that name: a labelled service
// without one scores recall 0.
type Score struct {
	Service                string
	Classified             bool
	TruePos, FalsePos, Neg int
	FalseNeg               int
}

// Precision, Recall and F1 of the service.
func (s Score) Precision() float64 { return ratio(s.TruePos, s.TruePos+s.FalsePos) }
func (s Score) Recall() float64    { return ratio(s.TruePos, s.TruePos+s.FalseNeg) }
func (s Score) F1() float64        { return f1(s.Precision(), s.Recall()) }

func f1(p, r float64) float64 {
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

// Labelled reports whether the split has dialogues of the service at all.
func (s Score) Labelled() bool { return s.TruePos+s.FalseNeg > 0 }

// Conversation is a dialogue as classifiers read it (a chat without
// timestamps).
func Conversation(d corpus.Dialogue) *analysis.Conversation {
	c := &analysis.Conversation{ID: d.ID, Turns: make([]analysis.Turn, 0, len(d.Turns))}
	for _, t := range d.Turns {
		c.Turns = append(c.Turns, analysis.Turn{Speaker: t.Participant(), Text: t.Text})
	}
	return c
}

// Report is a classifier set's accuracy over a split: a score for every
// classifier of the set (by its name) and for every service the split
// labels, and how many dialogues got exactly their labels.
type Report struct {
	Dialogues, Exact int
	Scores           []Score // by service
}

// Measure runs the set over the dialogues, each classifier named after
// the service it finds, and scores it against their labels.
func Measure(set *registry.Set, dialogues []corpus.Dialogue) (Report, error) {
	r := Report{Dialogues: len(dialogues)}
	at := map[string]int{}
	score := func(service string) *Score {
		k, ok := at[service]
		if !ok {
			k = len(r.Scores)
			at[service] = k
			r.Scores = append(r.Scores, Score{Service: service})
		}
		return &r.Scores[k]
	}
	for _, c := range set.Classifiers {
		score(c.Name).Classified = true
	}
	var outcomes []registry.Outcome
	var given []string
	for _, d := range dialogues {
		outcomes = set.EvaluateInto(context.Background(), Conversation(d), outcomes)
		given = given[:0]
		for _, o := range outcomes {
			if o.Err != nil {
				return r, fmt.Errorf("%s on %s: %w", o.Classifier.Name, d.ID, o.Err)
			}
			if o.Result.Bool != nil && *o.Result.Bool && !slices.Contains(given, o.Classifier.Name) {
				given = append(given, o.Classifier.Name)
			}
		}
		for _, service := range d.Services {
			score(service) // a labelled service without a classifier
		}
		exact := len(given) == len(d.Services)
		for k := range r.Scores {
			s := &r.Scores[k]
			got, want := slices.Contains(given, s.Service), slices.Contains(d.Services, s.Service)
			exact = exact && got == want
			switch {
			case got && want:
				s.TruePos++
			case got:
				s.FalsePos++
			case want:
				s.FalseNeg++
			default:
				s.Neg++
			}
		}
		if exact {
			r.Exact++
		}
	}
	slices.SortFunc(r.Scores, func(a, b Score) int { return cmp.Compare(a.Service, b.Service) })
	return r, nil
}

// Macro is the unweighted mean precision, recall and F1 over every service
// the split labels (a classifier's false positives for a service the split
// never labels count in Micro and in its row).
func (r Report) Macro() (p, rec, f float64) {
	n := 0
	for _, s := range r.Scores {
		if !s.Labelled() {
			continue
		}
		p += s.Precision()
		rec += s.Recall()
		f += s.F1()
		n++
	}
	d := float64(max(n, 1))
	return p / d, rec / d, f / d
}

// Micro is precision, recall and F1 over every label and every claim of
// the split pooled.
func (r Report) Micro() (p, rec, f float64) {
	var tp, fp, fn int
	for _, s := range r.Scores {
		tp, fp, fn = tp+s.TruePos, fp+s.FalsePos, fn+s.FalseNeg
	}
	p, rec = ratio(tp, tp+fp), ratio(tp, tp+fn)
	return p, rec, f1(p, rec)
}

// ExactRate is the share of dialogues given exactly their labels.
func (r Report) ExactRate() float64 { return ratio(r.Exact, r.Dialogues) }

// Labels is how many labels the split has, and of how many services.
func (r Report) Labels() (labels, services int) {
	for _, s := range r.Scores {
		if s.Labelled() {
			labels += s.TruePos + s.FalseNeg
			services++
		}
	}
	return labels, services
}

// WriteTable prints reports of one split side by side, a column each.
func WriteTable(w io.Writer, split string, names []string, reports []Report) {
	labels, services := reports[0].Labels()
	fmt.Fprintf(w, "split %s: %d dialogues, %d labels of %d services; every labelled service counted (no classifier: recall 0)\n",
		split, reports[0].Dialogues, labels, services)
	fmt.Fprintf(w, "%-16s", "service")
	for _, n := range names {
		fmt.Fprintf(w, " | %-26s", n+": P / R / F1")
	}
	fmt.Fprintln(w)
	var rows []string
	for _, r := range reports {
		for _, s := range r.Scores {
			if !slices.Contains(rows, s.Service) {
				rows = append(rows, s.Service)
			}
		}
	}
	slices.Sort(rows)
	for _, service := range rows {
		fmt.Fprintf(w, "%-16s", service)
		for _, r := range reports {
			k := slices.IndexFunc(r.Scores, func(s Score) bool { return s.Service == service })
			var s Score
			if k >= 0 {
				s = r.Scores[k]
			}
			switch {
			case !s.Labelled():
				fmt.Fprintf(w, " | %-26s", fmt.Sprintf("no dialogues, %d false pos.", s.FalsePos))
			case !s.Classified:
				fmt.Fprintf(w, " | %-26s", "no classifier: recall 0")
			default:
				fmt.Fprintf(w, " | %-26s", fmt.Sprintf("%5.3f / %5.3f / %5.3f", s.Precision(), s.Recall(), s.F1()))
			}
		}
		fmt.Fprintln(w)
	}
	row := func(name string, figures func(Report) string) {
		fmt.Fprintf(w, "%-16s", name)
		for _, r := range reports {
			fmt.Fprintf(w, " | %-26s", figures(r))
		}
		fmt.Fprintln(w)
	}
	row("macro", func(r Report) string { p, rec, f := r.Macro(); return fmt.Sprintf("%5.3f / %5.3f / %5.3f", p, rec, f) })
	row("micro", func(r Report) string { p, rec, f := r.Micro(); return fmt.Sprintf("%5.3f / %5.3f / %5.3f", p, rec, f) })
	row("exact label set", func(r Report) string { return fmt.Sprintf("%5.3f (%d of %d)", r.ExactRate(), r.Exact, r.Dialogues) })
}
