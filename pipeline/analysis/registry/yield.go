package registry

import (
	"fmt"

	"github.com/earshot/earshot/pipeline/analysis"
)

// A topic a user wrote (a phrase rule with takesFromTrained) takes its
// conversations from trained models of its category that merely resemble
// it: where the rule is true, such a model keeps its label only from its
// sure level (trained.Model.Sure), the score most of its own label's
// conversations reach. Without this, a topic nobody trained lands on its
// nearest trained neighbour and a user's new topic cannot take it back.

// claimsAndYields finds the set's phrase rules that take from trained
// models and the trained models that can yield (their sure level above
// their threshold).
func (s *Set) claimsAndYields() {
	for i, c := range s.Classifiers {
		switch {
		case c.phrase != nil && c.phrase.TakesFromTrained():
			s.claims = append(s.claims, i)
		case c.trained != nil && c.trained.Sure > c.trained.Threshold:
			s.yields = append(s.yields, i)
		}
	}
	if len(s.yields) == 0 {
		s.claims = nil
	}
}

// yield withdraws, in each category where a claiming rule is true, the
// labels its trained models hold below their sure level. The score stays,
// and the reasoning names the rule.
func (s *Set) yield(out []Outcome) {
	for _, i := range s.claims {
		if !isTrue(out[i].Result) {
			continue
		}
		rule := s.Classifiers[i]
		for _, k := range s.yields {
			model := s.Classifiers[k]
			res := out[k].Result
			if model.Category != rule.Category || !isTrue(res) || res.Score == nil || *res.Score >= model.trained.Sure {
				continue
			}
			yielded := analysis.BoolResult(false, nil)
			yielded.Score = res.Score
			yielded.Reasoning = fmt.Sprintf("%s matched, and this model's probability %.4g is below the level it is sure from (%.4g)", rule.Name, *res.Score, model.trained.Sure)
			out[k].Result = yielded
		}
	}
}

func isTrue(r analysis.Result) bool { return r.Bool != nil && *r.Bool }
