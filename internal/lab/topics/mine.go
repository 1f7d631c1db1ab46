// Package topics builds and measures topic classifiers written as phrase
// rules: one classifier per service of the dialogue corpus, its phrases
// mined from the training split (Mine) and its accuracy measured on
// another split (Measure) with the real phrase engine.
package topics

import (
	"cmp"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/earshot/earshot/internal/lab/corpus"
	"github.com/earshot/earshot/pipeline/analysis"
	"github.com/earshot/earshot/pipeline/analysis/registry"
)

// MineOptions tune the phrase mining.
type MineOptions struct {
	MaxWords      int     // longest phrase, in words (3)
	MinDialogues  int     // a phrase must occur in at least this many dialogues (5)
	MaxPhrases    int     // per topic (40)
	MinPrecision  float64 // of a phrase on the training split (0.8)
	FalsePositive float64 // weight of a false positive against a true positive when choosing (2)
}

// DefaultMineOptions are the settings the committed topics were mined with.
var DefaultMineOptions = MineOptions{MaxWords: 3, MinDialogues: 5, MaxPhrases: 40, MinPrecision: 0.8, FalsePositive: 2}

// Topic is a mined topic classifier.
type Topic struct {
	Service string   `json:"service"`
	Phrases []string `json:"phrases"`
}

// Definition is the topic as a phrase-rule classifier definition: any of
// its phrases anywhere in the conversation.
func (t Topic) Definition() json.RawMessage {
	def, _ := json.Marshal(map[string]any{"groups": []any{map[string]any{"rules": []any{map[string]any{"phrases": t.Phrases}}}}})
	return def
}

// ngrams are the distinct phrases of up to n words in a dialogue's turns
// (never across turns).
func ngrams(d corpus.Dialogue, n int) []string {
	seen := map[string]bool{}
	for _, t := range d.Turns {
		toks := analysis.Tokenize(t.Text)
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

// Mine chooses each service's phrases from labelled dialogues: greedily
// the phrase that adds the most newly found dialogues of the service less
// FalsePositive times the newly found dialogues of other services, among
// phrases precise enough on their own, until nothing gains.
func Mine(dialogues []corpus.Dialogue, opt MineOptions) []Topic {
	return newMiner(dialogues, opt.MaxWords).mine(opt)
}

// miner holds the phrase index of a set of dialogues, for mining with
// several settings.
type miner struct {
	dialogues []corpus.Dialogue
	index     map[string][]int32 // phrase → dialogues containing it
}

func newMiner(dialogues []corpus.Dialogue, maxWords int) *miner {
	m := &miner{dialogues: dialogues, index: map[string][]int32{}}
	for i, d := range dialogues {
		for _, p := range ngrams(d, maxWords) {
			m.index[p] = append(m.index[p], int32(i))
		}
	}
	return m
}

func (m *miner) mine(opt MineOptions) []Topic {
	var topics []Topic
	for _, s := range Services(m.dialogues) {
		labelled := make([]bool, len(m.dialogues))
		for i, d := range m.dialogues {
			labelled[i] = slices.Contains(d.Services, s)
		}
		topics = append(topics, m.mineService(s, labelled, opt))
	}
	return topics
}

func (m *miner) mineService(service string, labelled []bool, opt MineOptions) Topic {
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
	covered := make([]bool, len(m.dialogues))
	topic := Topic{Service: service}
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

// Services are the distinct service labels, sorted.
func Services(dialogues []corpus.Dialogue) []string {
	set := map[string]bool{}
	for _, d := range dialogues {
		for _, s := range d.Services {
			set[s] = true
		}
	}
	out := make([]string, 0, len(set))
	for s := range set {
		out = append(out, s)
	}
	slices.Sort(out)
	return out
}

// Classifier is the topic as a phrase-rule classifier named after its
// service.
func (t Topic) Classifier() registry.Classifier {
	return registry.Classifier{ID: t.Service, Name: t.Service, Type: analysis.TypeClassifier, Category: "Topics", Definition: t.Definition()}
}

// Set compiles classifiers into a set, as ingest does.
func Set(classifiers []registry.Classifier) (*registry.Set, error) {
	compiled := make([]*registry.Compiled, 0, len(classifiers))
	for _, c := range classifiers {
		cc, err := registry.Compiler{}.Compile("bench", c)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", c.Name, err)
		}
		compiled = append(compiled, cc)
	}
	return registry.NewSet(compiled), nil
}

// PhraseClassifiers are the topics as phrase classifiers.
func PhraseClassifiers(topics []Topic) []registry.Classifier {
	cs := make([]registry.Classifier, len(topics))
	for i, t := range topics {
		cs[i] = t.Classifier()
	}
	return cs
}

// PhraseSet is the topics as a set of phrase classifiers.
func PhraseSet(topics []Topic) (*registry.Set, error) { return Set(PhraseClassifiers(topics)) }
