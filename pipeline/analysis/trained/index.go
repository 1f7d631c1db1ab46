package trained

import (
	"cmp"
	"math"
	"slices"
	"sync"

	"github.com/earshot/earshot/pipeline/analysis"
	"github.com/earshot/earshot/pipeline/analysis/words"
)

// Index evaluates several models in one pass over a conversation: their
// terms in one word index, each term with its weight in each model that
// has it. A set of topic models shares most of their terms, and a lookup
// per term and conversation is most of a model's cost.
type Index struct {
	models   []*Model
	terms    *words.Index
	first    []int32   // term t's postings are postings[first[t]:first[t+1]]
	postings []posting // by term
	scans    sync.Pool
}

// posting is a term's weight in one model.
type posting struct {
	model  int32
	weight float64
}

// NewIndex indexes models for evaluation together.
func NewIndex(models []*Model) *Index {
	number := map[string]int32{}
	var text []string
	for _, m := range models {
		for term := range m.Weights {
			if _, ok := number[term]; !ok {
				number[term] = int32(len(text))
				text = append(text, term)
			}
		}
	}
	slices.Sort(text)
	for i, t := range text {
		number[t] = int32(i)
	}
	byTerm := make([][]posting, len(text))
	for k, m := range models {
		for term, w := range m.Weights {
			t := number[term]
			byTerm[t] = append(byTerm[t], posting{int32(k), w})
		}
	}
	ix := &Index{models: models, terms: words.New(text), first: make([]int32, 1, len(text)+1)}
	for _, ps := range byTerm {
		slices.SortFunc(ps, func(a, b posting) int { return cmp.Compare(a.model, b.model) })
		ix.postings = append(ix.postings, ps...)
		ix.first = append(ix.first, int32(len(ix.postings)))
	}
	ix.scans.New = func() any { return &Scan{seen: make([]uint32, len(text))} }
	return ix
}

// Scan is what one pass over a conversation found: the indexed terms
// present, where each first is, and each model's log-odds.
type Scan struct {
	found []found
	z     []float64 // by model
	seen  []uint32  // by term: the generation that saw it
	gen   uint32
}

// found is an indexed term present in a conversation, where first seen.
type found struct {
	term int
	at   occurrence
}

// Scan reads the conversation once for every model; Release it after.
func (ix *Index) Scan(c *analysis.Conversation) *Scan {
	s := ix.scans.Get().(*Scan)
	s.gen++
	if s.gen == 0 { // wrapped: every stamp is stale again
		clear(s.seen)
		s.gen = 1
	}
	s.found = s.found[:0]
	n := c.Normalized()
	eachTerm(n, func(term string, prefix uint64, at occurrence) {
		if t, ok := ix.terms.FindPrefixed(prefix, term); ok && s.seen[t] != s.gen {
			s.seen[t] = s.gen
			s.found = append(s.found, found{t, at})
		}
	})
	s.z = slices.Grow(s.z[:0], len(ix.models))[:len(ix.models)]
	for k, m := range ix.models {
		s.z[k] = m.Bias
	}
	for _, f := range s.found {
		for _, p := range ix.postings[ix.first[f.term]:ix.first[f.term+1]] {
			s.z[p.model] += p.weight
		}
	}
	return s
}

// Release returns a scan's memory for reuse.
func (ix *Index) Release(s *Scan) { ix.scans.Put(s) }

// Probability is model k's probability that the scanned conversation has
// its label.
func (ix *Index) Probability(k int, s *Scan) float64 { return sigmoid(s.z[k]) }

// evidenceTerms is how many of the strongest terms for the label a true
// result shows.
const evidenceTerms = 3

// Evaluate is model k's result: true from its threshold, the probability
// as its score, and the terms that weighed most for the label as evidence.
func (ix *Index) Evaluate(k int, c *analysis.Conversation, s *Scan) analysis.Result {
	m := ix.models[k]
	p := ix.Probability(k, s)
	var evidence []analysis.Evidence
	if p >= m.Threshold {
		evidence = ix.evidence(k, c, s)
	}
	res := analysis.BoolResult(p >= m.Threshold, evidence)
	score := math.Round(p*1e4) / 1e4
	res.Score = &score
	return res
}

// evidence is where the model's strongest positive terms are: the
// evidenceTerms of largest weight, the earlier first among equals, picked
// in one pass over the terms found (a sort of them all cost more than the
// scan).
func (ix *Index) evidence(k int, c *analysis.Conversation, s *Scan) []analysis.Evidence {
	type weighed struct {
		at     occurrence
		weight float64
	}
	var best [evidenceTerms]weighed
	n := 0
	for _, f := range s.found {
		for _, p := range ix.postings[ix.first[f.term]:ix.first[f.term+1]] {
			if int(p.model) != k || p.weight <= 0 || n == evidenceTerms && best[n-1].weight >= p.weight {
				continue
			}
			// Insert in weight order, dropping the last when full.
			i := n
			for i > 0 && best[i-1].weight < p.weight {
				i--
			}
			copy(best[i+1:], best[i:min(n, evidenceTerms-1)])
			best[i] = weighed{f.at, p.weight}
			n = min(n+1, evidenceTerms)
		}
	}
	text := c.Normalized()
	out := make([]analysis.Evidence, 0, n)
	for _, b := range best[:n] {
		turn := text.TurnOf(b.at.token)
		from := b.at.token - text.TokensBefore(turn)
		to := from + 1
		if b.at.pair {
			to++
		}
		out = append(out, c.SpanEvidence(turn, from, to))
	}
	return out
}
