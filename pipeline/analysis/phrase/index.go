package phrase

import (
	"slices"
	"strings"

	"github.com/cloudflare/ahocorasick"

	"github.com/earshot/earshot/pipeline/analysis"
)

// Index finds the phrases of many classifiers in one pass over each turn:
// one Aho-Corasick automaton over every distinct phrase, matched against
// the turn's tokens joined by spaces (with a space at each end, so that
// only whole tokens match). A hit is then handed to the classifiers that
// have the phrase, so each classifier only looks at what was found.
type Index struct {
	classifiers []*Classifier
	// owners[id] are the classifiers (and their own phrase number) that
	// have automaton phrase id.
	owners  [][]owner
	matcher *ahocorasick.Matcher
}

type owner struct{ classifier, phrase int32 }

// NewIndex builds the automaton for a set of classifiers.
func NewIndex(classifiers []*Classifier) *Index {
	ix := &Index{classifiers: classifiers}
	ids := map[string]int32{}
	var keys []string
	for k, c := range classifiers {
		for p, key := range c.phrases {
			id, ok := ids[key]
			if !ok {
				id = int32(len(keys))
				ids[key] = id
				keys = append(keys, key)
				ix.owners = append(ix.owners, nil)
			}
			ix.owners[id] = append(ix.owners[id], owner{int32(k), int32(p)})
		}
	}
	ix.matcher = ahocorasick.NewStringMatcher(keys)
	return ix
}

// hit is one of a classifier's phrases found in a turn.
type hit struct{ turn, phrase int32 }

// Hits are what a Scan found in one conversation, by classifier, in turn
// order.
type Hits struct {
	byClassifier [][]hit
	conv         *analysis.Conversation
	// tokensBefore[i] is how many tokens the turns before i have; the last
	// entry is the total.
	tokensBefore []int
}

// Scan runs the automaton over every turn.
func (ix *Index) Scan(c *analysis.Conversation) *Hits {
	h := &Hits{byClassifier: make([][]hit, len(ix.classifiers)), conv: c, tokensBefore: make([]int, len(c.Turns)+1)}
	var buf []byte
	for i := range c.Turns {
		toks := c.Tokens(i)
		h.tokensBefore[i+1] = h.tokensBefore[i] + len(toks)
		buf = append(buf[:0], ' ')
		for _, t := range toks {
			buf = append(append(buf, t...), ' ')
		}
		for _, id := range ix.matcher.MatchThreadSafe(buf) {
			for _, o := range ix.owners[id] {
				h.byClassifier[o.classifier] = append(h.byClassifier[o.classifier], hit{int32(i), o.phrase})
			}
		}
	}
	return h
}

// Evaluate is classifier k's result from the hits of a Scan.
func (ix *Index) Evaluate(k int, c *analysis.Conversation, hits *Hits) analysis.Result {
	cl := ix.classifiers[k]
	ev := evaluation{c: c, hits: hits.byClassifier[k], phrases: cl.phrases, tokensBefore: hits.tokensBefore,
		endMs: c.DurationMs()}
	ev.timed = ev.endMs > 0
	var evidence []analysis.Evidence
	groupHolds := func(g group) bool {
		holds := !g.any
		for _, r := range g.rules {
			found := ev.rule(r)
			ok := (len(found) > 0) != r.negate
			if ok && !r.negate {
				evidence = append(evidence, found...)
			}
			if g.any && ok {
				holds = true
			}
			if !g.any && !ok {
				return false
			}
		}
		return holds
	}
	result := !cl.any
	for _, g := range cl.groups {
		ok := groupHolds(g)
		if cl.any && ok {
			result = true
		}
		if !cl.any && !ok {
			result = false
			break
		}
	}
	if !result {
		evidence = nil
	}
	return analysis.BoolResult(result, capEvidence(evidence))
}

// maxEvidence spans are kept per result: enough to show a reviewer where,
// without storing every repetition.
const maxEvidence = 10

func capEvidence(e []analysis.Evidence) []analysis.Evidence {
	if len(e) == 0 {
		return nil
	}
	slices.SortFunc(e, func(a, b analysis.Evidence) int { return a.Turn - b.Turn })
	e = slices.CompactFunc(e, func(a, b analysis.Evidence) bool { return a == b })
	return e[:min(len(e), maxEvidence)]
}

// phraseTokens splits a phrase key back into its tokens.
func phraseTokens(key string) []string { return strings.Fields(key) }
