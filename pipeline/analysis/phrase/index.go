package phrase

import (
	"bytes"
	"cmp"
	"slices"
	"strings"
	"sync"

	"github.com/cloudflare/ahocorasick"

	"github.com/earshot/earshot/pipeline/analysis"
)

// Index finds the phrases of many classifiers in one pass over a
// conversation: one Aho-Corasick automaton over every distinct phrase, run
// over the conversation's tokens written as codes (see codes). The
// automaton says which phrases occur; each is then located (bytes.Index,
// for the few found) and handed, as token positions, to the classifiers
// that have it, so each classifier only looks at what was found.
type Index struct {
	classifiers []*Classifier
	codes       codes
	phrases     [][]byte // each distinct phrase's codes
	// owners[id] are the classifiers (and their own phrase number) that
	// have automaton phrase id.
	owners  [][]owner
	matcher *ahocorasick.Matcher
	hits    sync.Pool // *Hits, released to be reused
}

type owner struct{ classifier, phrase int32 }

// match is automaton phrase id found at the conversation's tokens
// [g, end).
type match struct{ g, end, id int }

// NewIndex builds the automaton for a set of classifiers.
func NewIndex(classifiers []*Classifier) *Index {
	ix := &Index{classifiers: classifiers}
	ids := map[string]int32{}
	var words [][]string
	for k, c := range classifiers {
		for p, key := range c.phrases {
			id, ok := ids[key]
			if !ok {
				id = int32(len(words))
				ids[key] = id
				words = append(words, phraseTokens(key))
				ix.owners = append(ix.owners, nil)
			}
			ix.owners[id] = append(ix.owners[id], owner{int32(k), int32(p)})
		}
	}
	ix.codes = newCodes(words)
	for _, w := range words {
		ix.phrases = append(ix.phrases, ix.codes.phrase(w))
	}
	ix.matcher = ahocorasick.NewMatcher(ix.phrases)
	return ix
}

// occurrence is one of a classifier's phrases found at tokens [from, to)
// of a turn.
type occurrence struct{ turn, from, to, phrase int }

// Hits are what a Scan found in one conversation, and the working memory
// of the Scan and of its Evaluates, kept for the next Scan on Release.
type Hits struct {
	found []occurrence // by classifier, then in text order
	// first[k] is where classifier k's occurrences begin in found; the
	// last entry is len(found).
	first []int
	text  *analysis.Normalized
	endMs int64 // where the last turn ends

	codes    []byte
	at, ends []int32
	matches  []match
	evidence []analysis.Evidence // a classifier's evidence before capEvidence copies it out
}

func (h *Hits) of(k int) []occurrence { return h.found[h.first[k]:h.first[k+1]] }

// Scan runs the automaton over the conversation.
func (ix *Index) Scan(c *analysis.Conversation) *Hits {
	text := c.Normalized()
	h, _ := ix.hits.Get().(*Hits)
	if h == nil {
		h = &Hits{first: make([]int, len(ix.classifiers)+1)}
	}
	clear(h.first)
	h.text, h.endMs = text, c.DurationMs()
	h.codes, h.at, h.ends = ix.codes.conversation(text, h.codes[:0], h.at[:0], h.ends[:0])
	matches := h.matches[:0]
	for _, id := range ix.matcher.MatchThreadSafe(h.codes) {
		for from := 0; ; from++ {
			i := bytes.Index(h.codes[from:], ix.phrases[id])
			if i < 0 {
				break
			}
			from += i
			lastCode := from + len(ix.phrases[id]) - ix.codes.width
			matches = append(matches, match{int(h.at[from]), int(h.ends[lastCode]), id})
		}
	}
	h.matches = matches
	// In text order (then by phrase, for a stable order), and handed to
	// their classifiers: counted first, so the occurrences are one
	// allocation and each classifier's stay in text order.
	slices.SortFunc(matches, func(a, b match) int {
		if a.g != b.g {
			return a.g - b.g
		}
		return a.id - b.id
	})
	n := 0
	for _, m := range matches {
		for _, o := range ix.owners[m.id] {
			h.first[o.classifier+1]++
			n++
		}
	}
	for k := range ix.classifiers {
		h.first[k+1] += h.first[k]
	}
	h.found = slices.Grow(h.found[:0], n)[:n]
	for _, m := range matches {
		turn := text.TurnOf(m.g)
		from := m.g - text.TokensBefore(turn)
		for _, o := range ix.owners[m.id] {
			// first[k] moves along classifier k's place as it fills...
			h.found[h.first[o.classifier]] = occurrence{turn: turn, from: from, to: from + m.end - m.g, phrase: int(o.phrase)}
			h.first[o.classifier]++
		}
	}
	// ...and ends where the next one's begins: shift them back.
	copy(h.first[1:], h.first[:len(ix.classifiers)])
	h.first[0] = 0
	return h
}

// Release hands a Scan's hits back for another Scan to reuse, once every
// Evaluate of them is done (their results hold nothing of them).
func (ix *Index) Release(h *Hits) {
	h.text = nil
	ix.hits.Put(h)
}

// Evaluate is classifier k's result from the hits of a Scan.
func (ix *Index) Evaluate(k int, c *analysis.Conversation, hits *Hits) analysis.Result {
	cl := ix.classifiers[k]
	found := hits.of(k)
	if len(found) == 0 {
		// Most classifiers find none of their phrases in a conversation;
		// the answer then depends on the rules' negations alone.
		return analysis.BoolResult(cl.withoutPhrases, nil)
	}
	ev := evaluation{c: c, text: hits.text, hits: found, endMs: hits.endMs, timed: hits.endMs > 0}
	result, evidence := cl.decide(ev.rule, hits.evidence[:0])
	if cap(evidence) > cap(hits.evidence) {
		hits.evidence = evidence[:0]
	}
	return analysis.BoolResult(result, capEvidence(evidence))
}

// decide combines the rules' findings through the groups; the evidence,
// appended to scratch, is that of the rules that held (none when the
// classifier does not). find appends a rule's evidence to its argument.
func (c *Classifier) decide(find func(rule, []analysis.Evidence) []analysis.Evidence, scratch []analysis.Evidence) (bool, []analysis.Evidence) {
	evidence := scratch
	result := !c.any
	for _, g := range c.groups {
		holds := !g.any
		for _, r := range g.rules {
			before := len(evidence)
			evidence = find(r, evidence)
			ok := (len(evidence) > before) != r.negate
			if !ok || r.negate {
				evidence = evidence[:before] // a negated rule's phrases are no evidence
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

// capEvidence sorts and dedupes e in place and returns a copy of its first
// maxEvidence spans (e is working memory, reused).
func capEvidence(e []analysis.Evidence) []analysis.Evidence {
	if len(e) == 0 {
		return nil
	}
	slices.SortFunc(e, func(a, b analysis.Evidence) int {
		return cmp.Or(cmp.Compare(a.Turn, b.Turn), cmp.Compare(a.StartMs, b.StartMs), cmp.Compare(a.EndMs, b.EndMs), strings.Compare(a.Text, b.Text))
	})
	e = slices.CompactFunc(e, func(a, b analysis.Evidence) bool { return a == b })
	return slices.Clone(e[:min(len(e), maxEvidence)])
}

// phraseTokens splits a phrase key back into its tokens.
func phraseTokens(key string) []string { return strings.Fields(key) }
