// Package mining writes topic classifiers as phrase rules mined from
// labelled conversations: for each label, greedily the phrases (up to three
// words in one turn) that find the most conversations of the label and
// the fewest of the others. Mined topics are the explainable alternative
// to trained ones: a reviewer reads the phrases and can edit them.
package mining

import (
	"cmp"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/earshot/earshot/pipeline/analysis"
	"github.com/earshot/earshot/pipeline/analysis/numbers"
	"github.com/earshot/earshot/pipeline/analysis/phrase"
	"github.com/earshot/earshot/pipeline/analysis/trained"
)

// Options tune the mining.
type Options struct {
	MaxWords      int     // longest phrase, in words
	MinDialogues  int     // a phrase must occur in at least this many conversations
	MaxPhrases    int     // per topic
	MinPrecision  float64 // of a phrase on the examples
	FalsePositive float64 // weight of a false positive against a true positive when choosing
}

// DefaultOptions are the settings Mine starts from.
var DefaultOptions = Options{MaxWords: 3, MinDialogues: 5, MaxPhrases: 40, MinPrecision: 0.8, FalsePositive: 2}

// Grid is the settings Tune tries.
var Grid = func() []Options {
	var out []Options
	for _, minDocs := range []int{5, 20, 50} {
		for _, minPrec := range []float64{0.8, 0.9} {
			for _, fp := range []float64{1, 2, 4} {
				out = append(out, Options{MaxWords: 3, MinDialogues: minDocs, MaxPhrases: 40, MinPrecision: minPrec, FalsePositive: fp})
			}
		}
	}
	return out
}()

// Topic is a mined topic classifier.
type Topic struct {
	Label   string   `json:"label"`
	Phrases []string `json:"phrases"`
}

// Definition is the topic as a phrase-rule classifier definition: any of
// its phrases anywhere in the conversation.
func (t Topic) Definition() json.RawMessage {
	def, _ := json.Marshal(map[string]any{"groups": []any{map[string]any{"rules": []any{map[string]any{"phrases": t.Phrases}}}}})
	return def
}

// Mine chooses each label's phrases from the examples: greedily the phrase
// that adds the most newly found conversations of the label less
// FalsePositive times the newly found conversations without it, among
// phrases precise enough on their own, until nothing gains. A label with
// nothing to mine gets no topic.
func Mine(examples []trained.Example, opt Options) []Topic {
	return newMiner(examples, opt.MaxWords).mine(opt)
}

// Build tunes the settings on a held-out fifth of the examples (every
// fifth one), then mines with the best of them on all the examples; log
// hears each setting's held-out macro F1.
func Build(examples []trained.Example, log io.Writer) ([]Topic, Options, error) {
	opt, err := Tune(examples, log)
	if err != nil {
		return nil, opt, err
	}
	return Mine(examples, opt), opt, nil
}

// Tune picks the settings of Grid with the best macro F1 on a held-out
// fifth of the examples (every fifth one), mining on the rest.
func Tune(examples []trained.Example, log io.Writer) (Options, error) {
	var fit, held []trained.Example
	for i, e := range examples {
		if i%5 == 4 {
			held = append(held, e)
		} else {
			fit = append(fit, e)
		}
	}
	m := newMiner(fit, Grid[0].MaxWords) // every setting of the grid mines up to 3 words
	best, bestF1 := Grid[0], -1.0
	for _, opt := range Grid {
		f1, err := macroF1(m.mine(opt), held)
		if err != nil {
			return Options{}, err
		}
		fmt.Fprintf(log, "  min dialogues %2d, min precision %.1f, false-positive weight %.0f: held-out macro F1 %.3f\n",
			opt.MinDialogues, opt.MinPrecision, opt.FalsePositive, f1)
		if f1 > bestF1 {
			best, bestF1 = opt, f1
		}
	}
	return best, nil
}

// macroF1 is the topics' mean F1 over the labels the examples have (a
// label without a topic scores 0), each topic run through the phrase
// engine.
func macroF1(topics []Topic, examples []trained.Example) (float64, error) {
	classifiers := make([]*phrase.Classifier, len(topics))
	for k, t := range topics {
		c, err := phrase.Compile(t.Definition())
		if err != nil {
			return 0, fmt.Errorf("topic %s: %w", t.Label, err)
		}
		classifiers[k] = c
	}
	ix := phrase.NewIndex(classifiers)
	labels := trained.Labels(examples)
	tp, fp, fn := make([]int, len(labels)), make([]int, len(labels)), make([]int, len(labels))
	var given []string
	for _, e := range examples {
		hits := ix.Scan(e.Conversation)
		given = given[:0]
		for k, t := range topics {
			if *ix.Evaluate(k, e.Conversation, hits).Bool {
				given = append(given, t.Label)
			}
		}
		ix.Release(hits)
		for i, l := range labels {
			got, want := slices.Contains(given, l), slices.Contains(e.Labels, l)
			switch {
			case got && want:
				tp[i]++
			case got:
				fp[i]++
			case want:
				fn[i]++
			}
		}
	}
	sum := 0.0
	for i := range labels {
		if tp[i] > 0 {
			p, r := float64(tp[i])/float64(tp[i]+fp[i]), float64(tp[i])/float64(tp[i]+fn[i])
			sum += 2 * p * r / (p + r)
		}
	}
	return sum / float64(max(len(labels), 1)), nil
}

// ngrams are the distinct phrases of up to n words in a conversation's
// turns (never across turns), its numbers read as the phrase engine reads
// them ("$50.00" is the number 50 there, and "5.0" the number 5).
func ngrams(c *analysis.Conversation, n int) []string {
	seen := map[string]bool{}
	for _, t := range c.Turns {
		toks := numbers.Canonical(analysis.Tokenize(t.Text))
		for i := range toks {
			for k := 1; k <= n && i+k <= len(toks); k++ {
				seen[strings.Join(toks[i:i+k], " ")] = true
			}
		}
	}
	out := make([]string, 0, len(seen))
	for p := range seen {
		out = append(out, p)
	}
	return out
}

// miner holds the phrase index of a set of examples, for mining with
// several settings.
type miner struct {
	examples []trained.Example
	index    map[string][]int32 // phrase → examples containing it
}

func newMiner(examples []trained.Example, maxWords int) *miner {
	m := &miner{examples: examples, index: map[string][]int32{}}
	for i, e := range examples {
		for _, p := range ngrams(e.Conversation, maxWords) {
			m.index[p] = append(m.index[p], int32(i))
		}
	}
	return m
}

func (m *miner) mine(opt Options) []Topic {
	var topics []Topic
	for _, l := range trained.Labels(m.examples) {
		labelled := make([]bool, len(m.examples))
		for i, e := range m.examples {
			labelled[i] = slices.Contains(e.Labels, l)
		}
		if t := m.mineLabel(l, labelled, opt); len(t.Phrases) > 0 {
			topics = append(topics, t)
		}
	}
	return topics
}

func (m *miner) mineLabel(label string, labelled []bool, opt Options) Topic {
	type candidate struct {
		phrase string
		docs   []int32
	}
	var cands []candidate
	for p, docs := range m.index {
		if len(docs) < opt.MinDialogues {
			continue
		}
		tp := 0
		for _, d := range docs {
			if labelled[d] {
				tp++
			}
		}
		if float64(tp)/float64(len(docs)) >= opt.MinPrecision {
			cands = append(cands, candidate{p, docs})
		}
	}
	// Deterministic order: by support, then by text.
	slices.SortFunc(cands, func(a, b candidate) int {
		return cmp.Or(cmp.Compare(len(b.docs), len(a.docs)), cmp.Compare(a.phrase, b.phrase))
	})
	covered := make([]bool, len(m.examples))
	topic := Topic{Label: label}
	for len(topic.Phrases) < opt.MaxPhrases {
		best, bestGain := -1, 0.0
		for i, c := range cands {
			gain := 0.0
			for _, d := range c.docs {
				if covered[d] {
					continue
				}
				if labelled[d] {
					gain++
				} else {
					gain -= opt.FalsePositive
				}
			}
			if gain > bestGain {
				best, bestGain = i, gain
			}
		}
		if best < 0 || bestGain < 1 {
			break
		}
		topic.Phrases = append(topic.Phrases, cands[best].phrase)
		for _, d := range cands[best].docs {
			covered[d] = true
		}
	}
	return topic
}
