package phrase

import (
	"context"
	"slices"

	"github.com/earshot/earshot/pipeline/analysis"
)

// Evaluate runs one classifier alone (a Test, a single reclassification);
// a set of classifiers shares an Index instead.
func (c *Classifier) Evaluate(_ context.Context, conv *analysis.Conversation) (analysis.Result, error) {
	ix := c.single()
	hits := ix.Scan(conv)
	defer ix.Release(hits)
	return ix.Evaluate(0, conv, hits), nil
}

// evaluation is one classifier over one conversation.
type evaluation struct {
	c     *analysis.Conversation
	text  *analysis.Normalized
	hits  []occurrence // this classifier's phrases found, in text order
	timed bool
	endMs int64 // times count from 0: the recording's or the chat's start
}

// rule appends to out the evidence of the rule's phrase occurrences that
// meet all its conditions (none: the phrase is not there, as the rule
// wants it).
func (ev *evaluation) rule(r rule, out []analysis.Evidence) []analysis.Evidence {
	n := len(ev.c.Turns)
	for _, o := range ev.hits {
		if !r.has(o.phrase) {
			continue
		}
		if r.speaker != analysis.Any && ev.c.Turns[o.turn].Speaker != r.speaker {
			continue
		}
		if (r.window.kind == firstTurns && o.turn >= int(r.window.from)) || (r.window.kind == lastTurns && o.turn < n-int(r.window.from)) {
			continue
		}
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
	return out
}

// matches checks the match mode and the time or share window.
func (ev *evaluation) matches(r rule, o occurrence) bool {
	switch r.match {
	case StartsWith:
		if o.from != 0 {
			return false
		}
	case Exact:
		if o.from != 0 || o.to != ev.text.Count(o.turn) {
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
	total := ev.text.TokensBefore(len(ev.c.Turns))
	return float64(ev.text.TokensBefore(o.turn)+o.from) / float64(max(total, 1))
}

// near finds a near phrase within maxWords words of o in the same turn and
// returns the span covering both.
func (ev *evaluation) near(n *near, o occurrence) (occurrence, bool) {
	for _, q := range ev.hits {
		if q.turn != o.turn || !slices.Contains(n.phrases, q.phrase) {
			continue
		}
		gap := max(q.from-o.to, o.from-q.to)
		if gap <= n.maxWords {
			return occurrence{turn: o.turn, from: min(o.from, q.from), to: max(o.to, q.to)}, true
		}
	}
	return occurrence{}, false
}

// times are an occurrence's start and end (see analysis.SpanTimes).
func (ev *evaluation) times(o occurrence) (int64, int64) {
	return ev.c.SpanTimes(o.turn, o.from, o.to)
}

func (ev *evaluation) evidence(o occurrence) analysis.Evidence {
	return ev.c.SpanEvidence(o.turn, o.from, o.to)
}
