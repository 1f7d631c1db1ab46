package core

import (
	"context"
	"fmt"

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
	var sum float64
	var n int
	var evidence []analysis.Evidence
	for i, t := range c.Turns {
		if !speaks(s.speaker, t.Speaker) {
			continue
		}
		score := Compound(t.Text)
		sum += score
		n++
		if s.label != "" && Label(score) == s.label && len(evidence) < 10 {
			evidence = append(evidence, analysis.Evidence{Turn: i, StartMs: t.StartMs, EndMs: t.EndMs, Text: fmt.Sprintf("%s %.2f", s.label, score)})
		}
	}
	overall := 0.0
	if n > 0 {
		overall = sum / float64(n)
	}
	reasoning := fmt.Sprintf("mean VADER compound %.3f over %d turns", overall, n)
	if s.label == "" {
		return analysis.Result{Value: Label(overall), Score: &overall, Reasoning: reasoning}, nil
	}
	res := analysis.BoolResult(Label(overall) == s.label, nil)
	if *res.Bool {
		res.Evidence = evidence
	}
	res.Score, res.Reasoning = &overall, reasoning
	return res, nil
}
