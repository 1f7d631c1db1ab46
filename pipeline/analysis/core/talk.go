package core

import (
	"cmp"
	"context"
	"fmt"
	"slices"

	"github.com/earshot/earshot/pipeline/analysis"
)

// Talk measures, from word timings (calls) or turn times (chats with
// timestamps).
const (
	TalkShare        = "talkShare"    // share of the conversation the speaker talks (0..1)
	SilenceShare     = "silenceShare" // share nobody talks (0..1)
	OvertalkMs       = "overtalkMs"   // time both talk at once
	LongestMonologue = "longestMonologueMs"
	WordsPerMinute   = "wordsPerMinute" // of the speaker, over their talk time
)

var talkMeasures = []string{TalkShare, SilenceShare, OvertalkMs, LongestMonologue, WordsPerMinute}

// TalkStats are a conversation's talk statistics.
type TalkStats struct {
	DurationMs       int64
	TalkMs           map[string]int64 // by speaker
	SilenceMs        int64
	OvertalkMs       int64
	LongestMonologue map[string]int64 // by speaker: the longest stretch of one speaker's turns
	Words            map[string]int
}

// interval is a stretch of time [from, to) somebody talks.
type interval struct{ from, to int64 }

// merged sorts intervals and joins the overlapping ones.
func merged(in []interval) []interval {
	slices.SortFunc(in, func(a, b interval) int { return cmp.Compare(a.from, b.from) })
	var out []interval
	for _, iv := range in {
		if n := len(out); n > 0 && iv.from <= out[n-1].to {
			out[n-1].to = max(out[n-1].to, iv.to)
			continue
		}
		out = append(out, iv)
	}
	return out
}

func length(ivs []interval) (n int64) {
	for _, iv := range ivs {
		n += iv.to - iv.from
	}
	return n
}

// overlap is the time two sets of merged intervals share.
func overlap(a, b []interval) (n int64) {
	for i, j := 0, 0; i < len(a) && j < len(b); {
		n += max(0, min(a[i].to, b[j].to)-max(a[i].from, b[j].from))
		if a[i].to < b[j].to {
			i++
		} else {
			j++
		}
	}
	return n
}

// Talk computes the statistics: a speaker talks during their words when
// the turns have them (calls), else during their turns.
func Talk(c *analysis.Conversation) TalkStats {
	st := TalkStats{DurationMs: c.DurationMs(), TalkMs: map[string]int64{}, LongestMonologue: map[string]int64{}, Words: map[string]int{}}
	bySpeaker := map[string][]interval{}
	var all []interval
	for i, t := range c.Turns {
		st.Words[t.Speaker] += c.Normalized().Count(i)
		if len(t.Words) > 0 {
			for _, w := range t.Words {
				bySpeaker[t.Speaker] = append(bySpeaker[t.Speaker], interval{w.StartMs, w.EndMs})
			}
		} else if t.EndMs > t.StartMs {
			bySpeaker[t.Speaker] = append(bySpeaker[t.Speaker], interval{t.StartMs, t.EndMs})
		}
	}
	speakers := make([]string, 0, len(bySpeaker))
	for sp, ivs := range bySpeaker {
		bySpeaker[sp] = merged(ivs)
		st.TalkMs[sp] = length(bySpeaker[sp])
		all = append(all, bySpeaker[sp]...)
		speakers = append(speakers, sp)
	}
	slices.Sort(speakers)
	st.SilenceMs = max(st.DurationMs-length(merged(all)), 0)
	for i := range speakers {
		for j := i + 1; j < len(speakers); j++ {
			st.OvertalkMs += overlap(bySpeaker[speakers[i]], bySpeaker[speakers[j]])
		}
	}
	// Monologues: consecutive turns of one speaker, from the first's start
	// to the last's end.
	for i := 0; i < len(c.Turns); {
		j := i
		for j+1 < len(c.Turns) && c.Turns[j+1].Speaker == c.Turns[i].Speaker {
			j++
		}
		sp := c.Turns[i].Speaker
		st.LongestMonologue[sp] = max(st.LongestMonologue[sp], c.Turns[j].EndMs-c.Turns[i].StartMs)
		i = j + 1
	}
	return st
}

// measure is one statistic for a speaker ("Any": everyone together; for
// the longest monologue, anyone's).
func (st TalkStats) measure(name, speaker string) float64 {
	var talkMs, longest int64
	var words int
	for sp, ms := range st.TalkMs {
		if speaks(speaker, sp) {
			talkMs += ms
		}
	}
	for sp, ms := range st.LongestMonologue {
		if speaks(speaker, sp) {
			longest = max(longest, ms)
		}
	}
	for sp, n := range st.Words {
		if speaks(speaker, sp) {
			words += n
		}
	}
	switch name {
	case TalkShare:
		return float64(talkMs) / float64(max(st.DurationMs, 1))
	case SilenceShare:
		return float64(st.SilenceMs) / float64(max(st.DurationMs, 1))
	case OvertalkMs:
		return float64(st.OvertalkMs)
	case LongestMonologue:
		return float64(longest)
	case WordsPerMinute:
		if talkMs == 0 {
			return 0
		}
		return float64(words) / (float64(talkMs) / 60000)
	}
	return 0
}

// talk is a boolean: is the measure above (or below) the threshold?
type talk struct {
	measure, speaker string
	above            bool
	threshold        float64
}

func compileTalk(def *analysis.Object) (analysis.Engine, error) {
	if err := def.Allow("model", "measure", "speaker", "above", "below"); err != nil {
		return nil, err
	}
	t := talk{}
	var err error
	if t.measure, err = def.String("measure", "", talkMeasures...); err != nil {
		return nil, err
	}
	if t.measure == "" {
		return nil, analysis.Invalid(fmt.Sprintf("is required: one of %v", talkMeasures), "definition", "measure")
	}
	if t.speaker, err = speakerOf(def); err != nil {
		return nil, err
	}
	above, err := def.Number("above", 0, 1e9)
	if err != nil {
		return nil, err
	}
	below, err := def.Number("below", 0, 1e9)
	if err != nil {
		return nil, err
	}
	switch {
	case (above == nil) == (below == nil):
		return nil, analysis.Invalid("needs one threshold: above or below", "definition")
	case above != nil:
		t.above, t.threshold = true, *above
	default:
		t.threshold = *below
	}
	return t, nil
}

func (t talk) Evaluate(_ context.Context, c *analysis.Conversation) (analysis.Result, error) {
	if !c.Timed() {
		v := false
		return analysis.Result{Value: "false", Bool: &v, Reasoning: "the conversation has no timings"}, nil
	}
	st := Talk(c)
	value := st.measure(t.measure, t.speaker)
	hit := value > t.threshold
	if !t.above {
		hit = value < t.threshold
	}
	res := analysis.BoolResult(hit, nil)
	res.Score = &value
	res.Reasoning = fmt.Sprintf("%s of %s: %.3f; duration %d ms, silence %d ms, overtalk %d ms",
		t.measure, t.speaker, value, st.DurationMs, st.SilenceMs, st.OvertalkMs)
	return res, nil
}
