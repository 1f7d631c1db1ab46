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
// only whole tokens match).
type Index struct {
	classifiers []*Classifier
	// global[k][p] is classifier k's phrase p in the automaton.
	global  [][]int32
	matcher *ahocorasick.Matcher
}

// NewIndex builds the automaton for a set of classifiers.
func NewIndex(classifiers []*Classifier) *Index {
	ix := &Index{classifiers: classifiers, global: make([][]int32, len(classifiers))}
	ids := map[string]int32{}
	var keys []string
	for k, c := range classifiers {
		ix.global[k] = make([]int32, len(c.phrases))
		for p, key := range c.phrases {
			id, ok := ids[key]
			if !ok {
				id = int32(len(keys))
				ids[key] = id
				keys = append(keys, key)
			}
			ix.global[k][p] = id
		}
	}
	ix.matcher = ahocorasick.NewStringMatcher(keys)
	return ix
}

// Hits are the phrases found in each turn of one conversation.
type Hits struct {
	turns [][]int32 // sorted automaton ids per turn
}

func (h *Hits) has(turn int, id int32) bool {
	_, ok := slices.BinarySearch(h.turns[turn], id)
	return ok
}

// Scan runs the automaton over every turn.
func (ix *Index) Scan(c *analysis.Conversation) *Hits {
	h := &Hits{turns: make([][]int32, len(c.Turns))}
	var buf []byte
	for i := range c.Turns {
		buf = append(buf[:0], ' ')
		for _, t := range c.Tokens(i) {
			buf = append(append(buf, t...), ' ')
		}
		found := ix.matcher.MatchThreadSafe(buf)
		if len(found) == 0 {
			continue
		}
		ids := make([]int32, len(found))
		for j, f := range found {
			ids[j] = int32(f)
		}
		slices.Sort(ids)
		h.turns[i] = ids
	}
	return h
}

// Evaluate is classifier k's result from the hits of a Scan.
func (ix *Index) Evaluate(k int, c *analysis.Conversation, hits *Hits) analysis.Result {
	cl := ix.classifiers[k]
	ev := evaluation{c: c, hits: hits, global: ix.global[k], phrases: cl.phrases}
	ev.prepare()
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
	slices.SortFunc(e, func(a, b analysis.Evidence) int { return a.Turn - b.Turn })
	e = slices.CompactFunc(e, func(a, b analysis.Evidence) bool { return a == b })
	return e[:min(len(e), maxEvidence)]
}

// phraseTokens splits a phrase key back into its tokens.
func phraseTokens(key string) []string { return strings.Fields(key) }
