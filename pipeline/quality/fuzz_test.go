package quality

import (
	"encoding/json"
	"fmt"
	"math"
	"testing"
)

// FuzzFormAndAnswers feeds forms and answers as clients send them: a form
// is prepared or refused, answers are normalized or refused, and scores
// stay within their bounds, never a panic. A form's bound questions are
// answered from results made of the answers' bytes too, and the
// scorecard scores them as Form.Score does.
func FuzzFormAndAnswers(f *testing.F) {
	f.Add([]byte(`{"modules":[{"name":"M","questions":[{"questionText":"Q","weight":2,"tags":[{"value":"Yes","scoredValue":1},{"value":"No","scoredValue":0},{"value":"N/A"}]},{"questionText":"N","type":"FillIn"}]}]}`),
		[]byte(`[{"questionId":"id-2","tagIds":["yes"]},{"questionId":"id-6","fillInAnswerValue":"x"}]`))
	f.Add([]byte(`{"modules":[{"name":"M","questions":[{"questionText":"Q","multiSelect":true,"weight":1e308,"tags":[{"value":"a","scoredValue":-5},{"value":"b","scoredValue":1e308}]}]}]}`),
		[]byte(`[{"questionId":"id-2","tagIds":["a","b","a"]}]`))
	f.Add([]byte(`{"autoScore":true,"modules":[{"name":"M","questions":[{"questionText":"Q","weight":2,"tags":[{"value":"Yes","scoredValue":1},{"value":"No","scoredValue":0}],"classifierId":"c1","answerWhenTrue":"yes","answerWhenFalse":"No"},{"questionText":"R","tags":[{"value":"Y","scoredValue":2},{"value":"N"}],"classifierRule":{"operator":"ANY","classifierIds":["c1","c2"]},"answerWhenTrue":"Y","answerWhenFalse":"N"}]}]}`),
		[]byte(`10-`))
	f.Fuzz(func(t *testing.T, formJSON, answersJSON []byte) {
		var form Form
		if json.Unmarshal(formJSON, &form) != nil {
			return
		}
		n := 0
		if form.Prepare(func() string { n++; return fmt.Sprintf("id-%d", n) }) != nil {
			return
		}
		card := form.Scorecard()
		results := card.Results(func(id string) (string, bool) {
			k := len(id) % max(len(answersJSON), 1)
			if len(answersJSON) == 0 || answersJSON[k] == '-' {
				return "", false
			}
			return fmt.Sprint(answersJSON[k]%2 == 1), true
		})
		auto, _ := card.Score(results)
		// The same sums, grouped by module in Form.Score: equal but for rounding.
		if normalized, err := form.Normalize(card.Answers(results)); err != nil || math.Abs(form.Score(normalized).Overall-auto) > 1e-9*max(1, auto) {
			t.Fatalf("the scorecard's %v and Form.Score's %v differ (%v)", auto, form.Score(normalized).Overall, err)
		}
		var answers []Answer
		if json.Unmarshal(answersJSON, &answers) != nil {
			return
		}
		normalized, err := form.Normalize(answers)
		if err != nil {
			return
		}
		form.Unanswered(normalized)
		scores := form.Score(normalized)
		for id, ws := range scores.Questions {
			_, q, _ := form.Question(id)
			if ws < 0 || ws > q.Weight {
				t.Fatalf("question %s: weighted score %v outside 0..%v", id, ws, q.Weight)
			}
		}
		if scores.Overall < 0 || scores.Overall > 100+1e-9 {
			t.Fatalf("overall %v", scores.Overall)
		}
	})
}
