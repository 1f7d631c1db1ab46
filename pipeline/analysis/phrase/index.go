package phrase

import (
	"cmp"
	"slices"
	"strings"

	"github.com/cloudflare/ahocorasick"

	"github.com/earshot/earshot/pipeline/analysis"
)

// Index finds the phrases of many classifiers in one pass over a
// conversation: one Aho-Corasick automaton over every distinct phrase, run
// over the conversation's normalized text (analysis.Normalized), whose
// tokens are separated by spaces and whose turns by line feeds, so a
// phrase key " a b " matches whole tokens of one turn only. The automaton
// says which phrases occur; each is then located in the text (strings.Index
// on a handful of keys) and handed, as token positions, to the classifiers
// that have it, so each classifier only looks at what was found.
type Index struct {
	classifiers []*Classifier
	keys        []string
	length      []int // tokens in each key
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
	for k, c := range classifiers {
		for p, key := range c.phrases {
			id, ok := ids[key]
			if !ok {
				id = int32(len(ix.keys))
				ids[key] = id
				ix.keys = append(ix.keys, key)
				ix.length = append(ix.length, len(phraseTokens(key)))
				ix.owners = append(ix.owners, nil)
			}
			ix.owners[id] = append(ix.owners[id], owner{int32(k), int32(p)})
		}
	}
	ix.matcher = ahocorasick.NewStringMatcher(ix.keys)
	return ix
}

// occurrence is one of a classifier's phrases found at tokens [from, to)
// of a turn.
type occurrence struct{ turn, from, to, phrase int }

// Hits are what a Scan found in one conversation, by classifier, in text
// order.
type Hits struct {
	byClassifier [][]occurrence
	text         *analysis.Normalized
	endMs        int64 // where the last turn ends
}

// Scan runs the automaton over the conversation.
func (ix *Index) Scan(c *analysis.Conversation) *Hits {
	text := c.Normalized()
	h := &Hits{byClassifier: make([][]occurrence, len(ix.classifiers)), text: text, endMs: c.DurationMs()}
	for _, id := range ix.matcher.MatchThreadSafe(text.Bytes()) {
		key := ix.keys[id]
		for at := 0; ; at++ {
			i := strings.Index(text.Text[at:], key)
			if i < 0 {
				break
			}
			at += i
			turn, from := text.TokenAt(at + 1)
			for _, o := range ix.owners[id] {
				h.byClassifier[o.classifier] = append(h.byClassifier[o.classifier],
					occurrence{turn: turn, from: from, to: from + ix.length[id], phrase: int(o.phrase)})
			}
		}
	}
	for _, found := range h.byClassifier {
		if len(found) > 1 {
			slices.SortFunc(found, func(a, b occurrence) int {
				return cmp.Or(cmp.Compare(a.turn, b.turn), cmp.Compare(a.from, b.from), cmp.Compare(a.to, b.to), cmp.Compare(a.phrase, b.phrase))
			})
		}
	}
	return h
}

// Evaluate is classifier k's result from the hits of a Scan.
func (ix *Index) Evaluate(k int, c *analysis.Conversation, hits *Hits) analysis.Result {
	cl := ix.classifiers[k]
	found := hits.byClassifier[k]
	if len(found) == 0 {
		// Most classifiers find none of their phrases in a conversation;
		// the answer then depends on the rules' negations alone.
		return analysis.BoolResult(cl.withoutPhrases, nil)
	}
	ev := evaluation{c: c, text: hits.text, hits: found, endMs: hits.endMs, timed: hits.endMs > 0}
	result, evidence := cl.decide(ev.rule)
	return analysis.BoolResult(result, capEvidence(evidence))
}

// decide combines the rules' findings through the groups; the evidence is
// that of the rules that held (none when the classifier does not).
func (c *Classifier) decide(find func(rule) []analysis.Evidence) (bool, []analysis.Evidence) {
	var evidence []analysis.Evidence
	result := !c.any
	for _, g := range c.groups {
		holds := !g.any
		for _, r := range g.rules {
			found := find(r)
			ok := (len(found) > 0) != r.negate
			if ok && !r.negate {
				evidence = append(evidence, found...)
			}
			if g.any && ok {
				holds = true
			}
			if !g.any && !ok {
				holds = false
				break
			}
		}
		if c.any && holds {
			result = true
		}
		if !c.any && !holds {
			result = false
			break
		}
	}
	if !result {
		return false, nil
	}
	return true, evidence
}

// maxEvidence spans are kept per result: enough to show a reviewer where,
// without storing every repetition.
const maxEvidence = 10

func capEvidence(e []analysis.Evidence) []analysis.Evidence {
	if len(e) == 0 {
		return nil
	}
	slices.SortFunc(e, func(a, b analysis.Evidence) int {
		return cmp.Or(cmp.Compare(a.Turn, b.Turn), cmp.Compare(a.StartMs, b.StartMs), cmp.Compare(a.EndMs, b.EndMs), strings.Compare(a.Text, b.Text))
	})
	e = slices.CompactFunc(e, func(a, b analysis.Evidence) bool { return a == b })
	return e[:min(len(e), maxEvidence)]
}

// phraseTokens splits a phrase key back into its tokens.
func phraseTokens(key string) []string { return strings.Fields(key) }
