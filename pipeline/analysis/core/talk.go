package core

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"slices"
	"strconv"

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
	DurationMs int64
	SilenceMs  int64
	OvertalkMs int64 // time two speakers talk at once (summed over pairs)
	Speakers   []SpeakerTalk
}

// SpeakerTalk are one speaker's statistics.
type SpeakerTalk struct {
	Speaker            string
	TalkMs             int64
	LongestMonologueMs int64 // the longest stretch of their consecutive turns
	Words              int
}

// Of is a speaker's statistics (zero when they never speak).
func (st TalkStats) Of(speaker string) SpeakerTalk {
	for _, s := range st.Speakers {
		if s.Speaker == speaker {
			return s
		}
	}
	return SpeakerTalk{Speaker: speaker}
}

// spoken is a stretch of time [from, to) a speaker (an index into
// TalkStats.Speakers) talks.
type spoken struct {
	speaker  int
	from, to int64
}

// Talk computes the statistics: a speaker talks during their words when
// the turns have them (calls), else during their turns.
func Talk(c *analysis.Conversation) TalkStats {
	st := TalkStats{DurationMs: c.DurationMs(), Speakers: make([]SpeakerTalk, 0, 2)} // most conversations have two
	text := c.Normalized()
	var buf [64]spoken
	stretches := buf[:0]
	last := -1 // the speaker of the turn before, for monologues
	var monologueStart int64
	for i, t := range c.Turns {
		sp := st.speaker(t.Speaker)
		st.Speakers[sp].Words += text.Count(i)
		if len(t.Words) > 0 {
			for _, w := range t.Words {
				if w.EndMs > w.StartMs { // an empty (or backward) word is no talk
					stretches = append(stretches, spoken{sp, w.StartMs, w.EndMs})
				}
			}
		} else if t.EndMs > t.StartMs {
			stretches = append(stretches, spoken{sp, t.StartMs, t.EndMs})
		}
		// Monologues: consecutive turns of one speaker, from the first's
		// start to the last's end.
		if sp != last {
			last, monologueStart = sp, t.StartMs
		}
		st.Speakers[sp].LongestMonologueMs = max(st.Speakers[sp].LongestMonologueMs, t.EndMs-monologueStart)
	}
	// In time order (turns nearly always are already), each speaker's
	// stretches merge where they overlap, and so do everyone's: the one
	// pass gives each speaker's talk time and the time anyone talks.
	byFrom := func(a, b spoken) int { return cmp.Compare(a.from, b.from) }
	if !slices.IsSortedFunc(stretches, byFrom) {
		slices.SortFunc(stretches, byFrom)
	}
	var openBuf [2]spoken
	open := openBuf[:0] // each speaker's current merged stretch
	for range st.Speakers {
		open = append(open, spoken{speaker: -1}) // none yet
	}
	var bufMerged [64]spoken
	merged := bufMerged[:0]    // each speaker's merged stretches, for overtalk among three or more
	var talked, everyone int64 // the time anyone talks; the speakers' talk times summed
	anyoneTo := int64(math.MinInt64)
	for _, s := range stretches {
		if o := &open[s.speaker]; o.speaker >= 0 && s.from <= o.to {
			o.to = max(o.to, s.to)
		} else {
			if o.speaker >= 0 {
				merged = append(merged, *o)
			}
			*o = s
		}
		// Everyone's: only the part after the latest end so far is new.
		if s.to > anyoneTo {
			talked += s.to - max(s.from, anyoneTo)
			anyoneTo = s.to
		}
	}
	for _, o := range open {
		if o.speaker >= 0 {
			merged = append(merged, o)
		}
	}
	for _, s := range merged {
		st.Speakers[s.speaker].TalkMs += s.to - s.from
		everyone += s.to - s.from
	}
	st.SilenceMs = max(st.DurationMs-talked, 0)
	// With two speakers, they talk at once for the time they talk summed
	// less the time anyone talks; with more, pairs are counted in a sweep.
	if len(st.Speakers) <= 2 {
		st.OvertalkMs = everyone - talked
	} else {
		st.OvertalkMs = overtalk(merged)
	}
	return st
}

// overtalk is the time two speakers talk at once, summed over pairs, of
// speakers' merged stretches: one sweep over where stretches begin and
// end, while k speakers talk k(k-1)/2 pairs of them talk at once.
func overtalk(merged []spoken) int64 {
	events := make([]talkEvent, 0, 2*len(merged))
	for _, s := range merged {
		events = append(events, talkEvent{s.from, 1}, talkEvent{s.to, -1})
	}
	slices.SortFunc(events, func(a, b talkEvent) int { return cmp.Compare(a.at, b.at) })
	var total, talking int64
	for i, e := range events {
		if i > 0 {
			total += (e.at - events[i-1].at) * talking * (talking - 1) / 2
		}
		talking += e.change
	}
	return total
}

// talkEvent is a stretch beginning (+1) or ending (-1).
type talkEvent struct{ at, change int64 }

// speaker is the index of a speaker's statistics, added on first sight.
func (st *TalkStats) speaker(name string) int {
	for i, s := range st.Speakers {
		if s.Speaker == name {
			return i
		}
	}
	st.Speakers = append(st.Speakers, SpeakerTalk{Speaker: name})
	return len(st.Speakers) - 1
}

// measure is one statistic for a speaker ("Any": everyone together; for
// the longest monologue, anyone's).
func (st TalkStats) measure(name, speaker string) float64 {
	var talkMs, longest int64
	var words int
	for _, s := range st.Speakers {
		if speaks(speaker, s.Speaker) {
			talkMs += s.TalkMs
			longest = max(longest, s.LongestMonologueMs)
			words += s.Words
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
		res := analysis.BoolResult(false, nil)
		res.Reasoning = "the conversation has no timings"
		return res, nil
	}
	st := Talk(c)
	value := st.measure(t.measure, t.speaker)
	hit := value > t.threshold
	if !t.above {
		hit = value < t.threshold
	}
	res := analysis.BoolResult(hit, nil)
	res.Score = &value
	// "silenceShare of Any: 0.312; duration 61200 ms, silence 19100 ms,
	// overtalk 0 ms", written without fmt's boxing of every argument.
	var buf [160]byte
	b := append(append(append(append(buf[:0], t.measure...), " of "...), t.speaker...), ": "...)
	b = strconv.AppendFloat(b, value, 'f', 3, 64)
	b = strconv.AppendInt(append(b, "; duration "...), st.DurationMs, 10)
	b = strconv.AppendInt(append(b, " ms, silence "...), st.SilenceMs, 10)
	b = strconv.AppendInt(append(b, " ms, overtalk "...), st.OvertalkMs, 10)
	res.Reasoning = string(append(b, " ms"...))
	return res, nil
}
