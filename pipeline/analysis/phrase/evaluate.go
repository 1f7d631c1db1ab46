package phrase

import (
	"context"
	"slices"
	"strings"

	"github.com/earshot/earshot/pipeline/analysis"
)

// Evaluate runs one classifier alone (a Test, a single reclassification);
// a set of classifiers shares an Index instead.
func (c *Classifier) Evaluate(_ context.Context, conv *analysis.Conversation) (analysis.Result, error) {
	ix := c.single()
	return ix.Evaluate(0, conv, ix.Scan(conv)), nil
}

// evaluation is one classifier over one conversation.
type evaluation struct {
	c            *analysis.Conversation
	hits         []hit // this classifier's phrases found, in turn order
	phrases      []string
	tokensBefore []int
	timed        bool
	endMs        int64 // times count from 0: the recording's or the chat's start
}

// occurrence is a phrase found at tokens [from, to) of a turn.
type occurrence struct{ turn, from, to int }

// rule returns the evidence of the rule's phrase occurrences that meet
// all its conditions (none: the phrase is not there, as the rule wants it).
func (ev *evaluation) rule(r rule) []analysis.Evidence {
	var out []analysis.Evidence
	n := len(ev.c.Turns)
	for _, h := range ev.hits {
		i, p := int(h.turn), int(h.phrase)
		if !r.has(p) {
			continue
		}
		if r.speaker != analysis.Any && ev.c.Turns[i].Speaker != r.speaker {
			continue
		}
		if (r.window.kind == firstTurns && i >= int(r.window.from)) || (r.window.kind == lastTurns && i < n-int(r.window.from)) {
			continue
		}
		for _, o := range ev.find(i, p) {
			if !ev.matches(r, o) {
				continue
			}
			span, ok := o, true
			if r.near != nil {
				span, ok = ev.near(r.near, o)
			}
			if ok {
				out = append(out, ev.evidence(span))
			}
		}
	}
	return out
}

// find locates phrase p in turn i's tokens.
func (ev *evaluation) find(i, p int) []occurrence {
	toks, want := ev.c.Tokens(i), phraseTokens(ev.phrases[p])
	var out []occurrence
	for at := 0; at+len(want) <= len(toks); at++ {
		if equalAt(toks, at, want) {
			out = append(out, occurrence{turn: i, from: at, to: at + len(want)})
		}
	}
	return out
}

func equalAt(toks []string, at int, want []string) bool {
	for j, w := range want {
		if toks[at+j] != w {
			return false
		}
	}
	return true
}

// matches checks the match mode and the time or share window.
func (ev *evaluation) matches(r rule, o occurrence) bool {
	switch r.match {
	case StartsWith:
		if o.from != 0 {
			return false
		}
	case Exact:
		if o.from != 0 || o.to != len(ev.c.Tokens(o.turn)) {
			return false
		}
	}
	start, _ := ev.times(o)
	switch r.window.kind {
	case byTime:
		return float64(start) >= r.window.from && float64(start) < r.window.to
	case fromEnd:
		return float64(start) >= float64(ev.endMs)-r.window.from
	case byShare:
		share := ev.share(o, start)
		return share >= r.window.from && share < r.window.to
	}
	return true
}

// share is where an occurrence starts, as a share of the conversation: of
// its time when timed, else of its words.
func (ev *evaluation) share(o occurrence, startMs int64) float64 {
	if ev.timed {
		return float64(startMs) / float64(max(ev.endMs, 1))
	}
	total := ev.tokensBefore[len(ev.tokensBefore)-1]
	return float64(ev.tokensBefore[o.turn]+o.from) / float64(max(total, 1))
}

// near finds a near phrase within maxWords words of o in the same turn and
// returns the span covering both.
func (ev *evaluation) near(n *near, o occurrence) (occurrence, bool) {
	for _, h := range ev.hits {
		if int(h.turn) != o.turn || !slices.Contains(n.phrases, int(h.phrase)) {
			continue
		}
		for _, q := range ev.find(o.turn, int(h.phrase)) {
			gap := max(q.from-o.to, o.from-q.to)
			if gap <= n.maxWords {
				return occurrence{turn: o.turn, from: min(o.from, q.from), to: max(o.to, q.to)}, true
			}
		}
	}
	return occurrence{}, false
}

// times are an occurrence's start and end: its words' times when the
// turn's words line up with its tokens (calls), else the turn's.
func (ev *evaluation) times(o occurrence) (int64, int64) {
	t := ev.c.Turns[o.turn]
	if len(t.Words) == len(ev.c.Tokens(o.turn)) && len(t.Words) > 0 {
		return t.Words[o.from].StartMs, t.Words[o.to-1].EndMs
	}
	return t.StartMs, t.EndMs
}

func (ev *evaluation) evidence(o occurrence) analysis.Evidence {
	start, end := ev.times(o)
	return analysis.Evidence{Turn: o.turn, StartMs: start, EndMs: end, Text: strings.Join(ev.c.Tokens(o.turn)[o.from:o.to], " ")}
}
