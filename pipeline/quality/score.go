package quality

import (
	"fmt"
	"slices"
	"strings"
)

// Answer is an analyst's answer to one question: the chosen tags (by id
// or value), or the fill-in text; Note goes with either.
type Answer struct {
	QuestionID string   `json:"questionId"`
	TagIDs     []string `json:"tagIds"`
	FillIn     *string  `json:"fillInAnswerValue"`
	Note       *string  `json:"note"`
}

// Normalize checks answers against the form: each names a question of it
// once, chooses tags of that question (resolving values to ids) or gives a
// fill-in text as the question's type says.
func (f *Form) Normalize(answers []Answer) ([]Answer, error) {
	seen := map[string]bool{}
	out := make([]Answer, 0, len(answers))
	for i, a := range answers {
		at := fmt.Sprintf("answers[%d]", i)
		_, q, ok := f.Question(a.QuestionID)
		if !ok {
			return nil, fail(at+".questionId", "is not a question of the evaluation's form.")
		}
		if seen[q.ID] {
			return nil, fail(at+".questionId", "answers a question already answered.")
		}
		seen[q.ID] = true
		switch q.Type {
		case TypeFillIn:
			if len(a.TagIDs) > 0 {
				return nil, fail(at+".tagIds", "must be empty: the question is answered by fillInAnswerValue.")
			}
			a.TagIDs = []string{}
		default:
			if a.FillIn != nil {
				return nil, fail(at+".fillInAnswerValue", "must be absent: the question is answered by choosing tags.")
			}
			ids := []string{}
			for _, key := range a.TagIDs {
				tag, ok := q.tag(key)
				if !ok {
					return nil, fail(at+".tagIds", "%q is not an answer of this question.", key)
				}
				if !slices.Contains(ids, tag.ID) {
					ids = append(ids, tag.ID)
				}
			}
			if len(ids) > 1 && !q.MultiSelect {
				return nil, fail(at+".tagIds", "must choose one answer: the question is not multiple choice.")
			}
			a.TagIDs = ids
		}
		out = append(out, a)
	}
	return out, nil
}

func (q *Question) tag(key string) (Tag, bool) {
	for _, t := range q.Tags {
		if t.ID == key || strings.EqualFold(t.Value, key) {
			return t, true
		}
	}
	return Tag{}, false
}

// TagValues are the values of tags of the question, by id.
func (q *Question) TagValues(ids []string) []string {
	out := []string{}
	for _, id := range ids {
		if t, ok := q.tag(id); ok {
			out = append(out, t.Value)
		}
	}
	return out
}

// answered tells whether an answer says something.
func (a Answer) answered() bool {
	return len(a.TagIDs) > 0 || a.FillIn != nil && strings.TrimSpace(*a.FillIn) != ""
}

// Unanswered lists the required questions the answers leave open.
func (f *Form) Unanswered(answers []Answer) []string {
	given := map[string]bool{}
	for _, a := range answers {
		if a.answered() {
			given[a.QuestionID] = true
		}
	}
	var out []string
	for _, m := range f.Modules {
		for _, q := range m.Questions {
			if q.Required && !given[q.ID] {
				out = append(out, q.Text)
			}
		}
	}
	return out
}

// Scores are an evaluation's weighted scores.
type Scores struct {
	// Questions are the weighted scores of the scored answers, by
	// question id: weight × the chosen tags' scored values over the
	// question's best tag, at most the weight.
	Questions map[string]float64
	// Modules are percentages, by module id: 100 × the module's weighted
	// scores over the weights of its scored questions (0 when none is).
	Modules map[string]float64
	// Overall is the same percentage over the whole form.
	Overall float64
}

// Score computes the weighted scores of normalized answers. A question is
// scored when one of its chosen tags has a scored value and its best tag's
// value is positive; an unanswered question, a fill-in, or an answer of
// unscored tags only (N/A) counts neither in the score nor in the weights.
func (f *Form) Score(answers []Answer) Scores {
	byQuestion := map[string]Answer{}
	for _, a := range answers {
		byQuestion[a.QuestionID] = a
	}
	s := Scores{Questions: map[string]float64{}, Modules: map[string]float64{}}
	var allScore, allWeight float64
	for _, m := range f.Modules {
		var score, weight float64
		for _, q := range m.Questions {
			a, ok := byQuestion[q.ID]
			if !ok {
				continue
			}
			ws, scored := q.weighted(a.TagIDs)
			if !scored {
				continue
			}
			s.Questions[q.ID] = ws
			score += ws
			weight += q.Weight
		}
		s.Modules[m.ID] = percent(score, weight)
		allScore += score
		allWeight += weight
	}
	s.Overall = percent(allScore, allWeight)
	return s
}

// weighted is a Tags question's weighted score for the chosen tags (ids or
// values): its weight × the chosen tags' scored values over its best tag's,
// at most the weight; not scored when none of the chosen tags has a scored
// value, when the best tag's value is not positive, or for a fill-in.
func (q *Question) weighted(tagIDs []string) (float64, bool) {
	if q.Type != TypeTags {
		return 0, false
	}
	best, chosen, scored := 0.0, 0.0, false
	for _, t := range q.Tags {
		if t.ScoredValue != nil {
			best = max(best, *t.ScoredValue)
		}
	}
	for _, id := range tagIDs {
		if t, _ := q.tag(id); t.ScoredValue != nil {
			chosen += *t.ScoredValue
			scored = true
		}
	}
	if !scored || best <= 0 {
		return 0, false
	}
	return q.Weight * min(max(chosen, 0)/best, 1), true
}

func percent(score, weight float64) float64 {
	if weight == 0 {
		return 0
	}
	return 100 * score / weight
}
