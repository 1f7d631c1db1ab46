package lm

import (
	"math"
	"slices"
)

// Options tune a build.
type Options struct {
	// MinTrigramCount leaves out trigrams seen fewer times (their
	// probability goes to the bigram backoff): 2 makes a model several
	// times smaller for a small loss. 0 or 1 keeps them all.
	MinTrigramCount int64
	// GeneralWeight, with BuildFiles, mixes the domain model with the en-us
	// model's general one at this weight (0: the domain model alone): the
	// decoder then knows every general word too, and the domain's words
	// and phrases keep the rest of the weight.
	GeneralWeight float64
}

// Model is a built trigram model: log10 probabilities and backoff
// weights, as an ARPA file holds them.
type Model struct {
	words []string
	ids   map[string]uint32
	// uni[w], bi[key2], tri[key3]: log10 p(w | history).
	uni []float64
	bi  map[uint64]float64
	tri map[uint64]float64
	// backoff weights (log10) of unigram and bigram histories.
	uniBackoff []float64
	biBackoff  map[uint64]float64
}

// discounts are modified Kneser-Ney's three discounts of an order (for
// counts 1, 2 and 3 or more), from its count-of-counts (Chen & Goodman
// 1998).
type discounts [3]float64

func newDiscounts(countOfCounts [5]int64) discounts {
	n1, n2, n3, n4 := float64(countOfCounts[1]), float64(countOfCounts[2]), float64(countOfCounts[3]), float64(countOfCounts[4])
	if n1 == 0 || n2 == 0 || n3 == 0 || n4 == 0 {
		// Too little data for the estimate: a fixed, common discount.
		return discounts{0.5, 1, 1.5}
	}
	y := n1 / (n1 + 2*n2)
	d := discounts{1 - 2*y*n2/n1, 2 - 3*y*n3/n2, 3 - 4*y*n4/n3}
	for i := range d {
		d[i] = min(max(d[i], 0.01), float64(i+1)-0.01)
	}
	return d
}

func (d discounts) of(count int64) float64 {
	return d[min(count, 3)-1]
}

func countOfCounts[K comparable](counts map[K]int64) (out [5]int64) {
	for _, n := range counts {
		if n < 5 {
			out[n]++
		}
	}
	return out
}

// history accumulates, for one history, the sum of its continuations'
// counts and of their discounts.
type history struct {
	total, discounted float64
}

// Build smooths the counts into a model: interpolated modified Kneser-Ney
// (lower orders on continuation counts), then listed n-grams keep their
// interpolated probability and each history's backoff weight is what
// makes its distribution sum to one.
func (c *Counter) Build(opt Options) *Model {
	// Adjusted counts: a bigram's is how many distinct words precede it
	// (its raw count after <s>, which nothing precedes); a unigram's how
	// many distinct words precede it.
	adj2 := make(map[uint64]int64, len(c.bi))
	for k := range c.tri {
		_, b, w := split3(k)
		adj2[key2(b, w)]++
	}
	for k, n := range c.bi {
		if a, _ := split2(k); a == startID {
			adj2[k] = n
		}
	}
	adj1 := make(map[uint32]int64, len(c.words))
	for k := range c.bi {
		_, w := split2(k)
		adj1[w]++
	}
	d1, d2, d3 := newDiscounts(countOfCounts(adj1)), newDiscounts(countOfCounts(adj2)), newDiscounts(countOfCounts(c.tri))

	m := &Model{words: c.words, ids: c.ids, uni: make([]float64, len(c.words)), uniBackoff: make([]float64, len(c.words)),
		bi: make(map[uint64]float64, len(c.bi)), tri: map[uint64]float64{}, biBackoff: map[uint64]float64{}}

	// Unigrams, interpolated with the uniform distribution over the
	// vocabulary (</s> included, <s> never predicted).
	var uniHist history
	for _, n := range adj1 {
		uniHist.total += float64(n)
		uniHist.discounted += d1.of(n)
	}
	uniform := 1 / float64(len(c.words)-1)
	p1 := make([]float64, len(c.words))
	for w := range c.words {
		if w == startID {
			continue
		}
		n := adj1[uint32(w)]
		if n > 0 {
			p1[w] = (float64(n) - d1.of(n)) / uniHist.total
		}
		p1[w] += uniHist.discounted / uniHist.total * uniform
	}

	// Bigrams.
	biHist := map[uint32]*history{}
	for k, n := range adj2 {
		a, _ := split2(k)
		h := biHist[a]
		if h == nil {
			h = &history{}
			biHist[a] = h
		}
		h.total += float64(n)
		h.discounted += d2.of(n)
	}
	p2 := make(map[uint64]float64, len(adj2))
	for k, n := range adj2 {
		a, w := split2(k)
		h := biHist[a]
		p2[k] = (float64(n)-d2.of(n))/h.total + h.discounted/h.total*p1[w]
	}
	// p2of is p(w | a) for any pair: listed, or backed off to the unigram.
	lower2 := func(a, w uint32) float64 {
		if p, ok := p2[key2(a, w)]; ok {
			return p
		}
		if h := biHist[a]; h != nil {
			return h.discounted / h.total * p1[w]
		}
		return p1[w]
	}

	// Trigrams: all of them shape the histories, the frequent ones are
	// listed.
	triHist := map[uint64]*history{}
	for k, n := range c.tri {
		a, b, _ := split3(k)
		h := triHist[key2(a, b)]
		if h == nil {
			h = &history{}
			triHist[key2(a, b)] = h
		}
		h.total += float64(n)
		h.discounted += d3.of(n)
	}
	p3 := map[uint64]float64{}
	for k, n := range c.tri {
		if n < opt.MinTrigramCount {
			continue
		}
		a, b, w := split3(k)
		h := triHist[key2(a, b)]
		p3[k] = (float64(n)-d3.of(n))/h.total + h.discounted/h.total*lower2(b, w)
	}

	// Backoff weights: the probability left to unlisted words over what the
	// lower order gives them.
	type mass struct{ listed, lower float64 }
	uniMass := make([]mass, len(c.words))
	for k, p := range p2 {
		a, w := split2(k)
		uniMass[a].listed += p
		uniMass[a].lower += p1[w]
	}
	for w := range c.words {
		m.uni[w] = log10(p1[w])
		m.uniBackoff[w] = log10(backoff(uniMass[w].listed, uniMass[w].lower))
	}
	m.uni[startID] = -99 // never predicted
	for k, p := range p2 {
		m.bi[k] = log10(p)
	}
	biMass := map[uint64]*mass{}
	for k, p := range p3 {
		a, b, w := split3(k)
		h := biMass[key2(a, b)]
		if h == nil {
			h = &mass{}
			biMass[key2(a, b)] = h
		}
		h.listed += p
		h.lower += lower2(b, w)
		m.tri[k] = log10(p)
	}
	for k, h := range biMass {
		m.biBackoff[k] = log10(backoff(h.listed, h.lower))
	}
	return m
}

func backoff(listed, lower float64) float64 {
	if listed == 0 {
		return 1
	}
	left, lowerLeft := 1-listed, 1-lower
	if left <= 1e-12 || lowerLeft <= 1e-12 {
		return 1e-12
	}
	return left / lowerLeft
}

func log10(p float64) float64 {
	if p <= 0 {
		return -99
	}
	return math.Log10(p)
}

// Sizes are the numbers of unigrams, bigrams and trigrams listed.
func (m *Model) Sizes() [3]int { return [3]int{len(m.uni), len(m.bi), len(m.tri)} }

func sortedKeys[V any](m map[uint64]V) []uint64 {
	keys := make([]uint64, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
