package core

import (
	"context"
	"strconv"

	"github.com/earshot/earshot/pipeline/analysis"
)

// Sentiment labels, from VADER's compound score by its authors' thresholds.
const (
	Positive = "Positive"
	Neutral  = "Neutral"
	Negative = "Negative"
)

// Label is the label of a VADER compound score.
func Label(compound float64) string {
	switch {
	case compound >= 0.05:
		return Positive
	case compound <= -0.05:
		return Negative
	}
	return Neutral
}

// sentiment scores each turn of a speaker and their whole conversation
// (the mean of their turns' compound scores). With a label it is a
// boolean: "is the customer's sentiment Negative?", the turns with that
// label as evidence; without, the result is the label.
type sentiment struct {
	speaker string
	label   string
}

func compileSentiment(def *analysis.Object) (analysis.Engine, error) {
	if err := def.Allow("model", "speaker", "label"); err != nil {
		return nil, err
	}
	s := sentiment{}
	var err error
	if s.speaker, err = speakerOf(def); err != nil {
		return nil, err
	}
	if s.label, err = def.String("label", "", Positive, Neutral, Negative); err != nil {
		return nil, err
	}
	return s, nil
}

func (s sentiment) Evaluate(_ context.Context, c *analysis.Conversation) (analysis.Result, error) {
	var buf [64]float64 // the speaker's turns' scores: on the stack for most conversations
	scores := buf[:0]
	sum := 0.0
	for _, t := range c.Turns {
		if speaks(s.speaker, t.Speaker) {
			score := Compound(t.Text)
			scores = append(scores, score)
			sum += score
		}
	}
	overall := 0.0
	if len(scores) > 0 {
		overall = sum / float64(len(scores))
	}
	// "mean VADER compound -0.214 over 9 turns", without fmt's boxing.
	var text [64]byte
	b := strconv.AppendFloat(append(text[:0], "mean VADER compound "...), overall, 'f', 3, 64)
	b = strconv.AppendInt(append(b, " over "...), int64(len(scores)), 10)
	reasoning := string(append(b, " turns"...))
	if s.label == "" {
		return analysis.Result{Value: Label(overall), Score: &overall, Reasoning: reasoning}, nil
	}
	res := analysis.BoolResult(Label(overall) == s.label, nil)
	if *res.Bool {
		res.Evidence = s.evidence(c, scores)
	}
	res.Score, res.Reasoning = &overall, reasoning
	return res, nil
}

// evidence are the (first ten) turns with the label, given the speaker's
// turns' scores.
func (s sentiment) evidence(c *analysis.Conversation, scores []float64) []analysis.Evidence {
	var evidence []analysis.Evidence
	k := 0
	for i, t := range c.Turns {
		if !speaks(s.speaker, t.Speaker) {
			continue
		}
		score := scores[k]
		k++
		if Label(score) == s.label && len(evidence) < 10 {
			var b [32]byte
			text := string(strconv.AppendFloat(append(append(b[:0], s.label...), ' '), score, 'f', 2, 64))
			evidence = append(evidence, analysis.Evidence{Turn: i, StartMs: t.StartMs, EndMs: t.EndMs, Text: text})
		}
	}
	return evidence
}
