package quality

import (
	"fmt"
	"slices"
	"strings"
)

// Binding answers a Tags question from the classifiers that already ran on
// the conversation: one classifier's result (ClassifierID), or a rule over
// several (Rule). True gives the tag of value WhenTrue, false WhenFalse;
// a question whose classifiers have no result for the conversation (one
// failed, or is no longer active) stays open for a person.
type Binding struct {
	ClassifierID string `json:"classifierId,omitempty"`
	Rule         *Rule  `json:"classifierRule,omitempty"`
	WhenTrue     string `json:"answerWhenTrue,omitempty"`
	WhenFalse    string `json:"answerWhenFalse,omitempty"`
}

// Rule combines several classifiers' results: all of them true, any of
// them, or none of them.
type Rule struct {
	Operator      string   `json:"operator"`
	ClassifierIDs []string `json:"classifierIds"`
}

// Rule operators.
const (
	RuleAll  = "all"
	RuleAny  = "any"
	RuleNone = "none"
)

// bound reports whether the question says anything of a binding.
func (b Binding) bound() bool {
	return b.ClassifierID != "" || b.Rule != nil || b.WhenTrue != "" || b.WhenFalse != ""
}

// classifierIDs are the classifiers the binding reads.
func (b Binding) classifierIDs() []string {
	if b.Rule != nil {
		return b.Rule.ClassifierIDs
	}
	if b.ClassifierID != "" {
		return []string{b.ClassifierID}
	}
	return nil
}

// prepareBinding checks a question's binding and writes its answers as
// the question's tag values are spelled.
func prepareBinding(q *Question, at string) error {
	b := &q.Binding
	if !b.bound() {
		return nil
	}
	if q.Type == TypeFillIn {
		return fail(at+".classifierId", "must be absent: a FillIn question is answered by a person.")
	}
	switch {
	case b.ClassifierID != "" && b.Rule != nil:
		return fail(at+".classifierRule", "must be absent when classifierId is given: a question is bound to one classifier or to a rule.")
	case b.ClassifierID == "" && b.Rule == nil:
		return fail(at+".classifierId", "is required with answerWhenTrue and answerWhenFalse (or give classifierRule).")
	case b.Rule != nil:
		op := strings.ToLower(b.Rule.Operator)
		if !slices.Contains([]string{RuleAll, RuleAny, RuleNone}, op) {
			return fail(at+".classifierRule.operator", "must be all, any or none.")
		}
		b.Rule.Operator = op
		if len(b.Rule.ClassifierIDs) == 0 {
			return fail(at+".classifierRule.classifierIds", "must list the classifiers the rule reads.")
		}
		for i, id := range b.Rule.ClassifierIDs {
			if strings.TrimSpace(id) == "" {
				return fail(fmt.Sprintf("%s.classifierRule.classifierIds[%d]", at, i), "must be a classifier id.")
			}
		}
	}
	for _, answer := range []struct {
		field string
		value *string
	}{{"answerWhenTrue", &b.WhenTrue}, {"answerWhenFalse", &b.WhenFalse}} {
		tag, ok := q.tag(*answer.value)
		if *answer.value == "" || !ok {
			var values []string
			for _, t := range q.Tags {
				values = append(values, t.Value)
			}
			return fail(at+"."+answer.field, "must be one of the question's answers: %s.", strings.Join(values, ", "))
		}
		*answer.value = tag.Value
	}
	return nil
}

// BoundClassifier is a classifier a question is bound to, and where the
// form names it.
type BoundClassifier struct{ ID, Path string }

// BoundClassifiers are the classifiers the form's questions are bound to,
// in the form's order, each once (where first named).
func (f *Form) BoundClassifiers() []BoundClassifier {
	var out []BoundClassifier
	add := func(id, path string) {
		if !slices.ContainsFunc(out, func(b BoundClassifier) bool { return b.ID == id }) {
			out = append(out, BoundClassifier{id, path})
		}
	}
	for m, mod := range f.Modules {
		for q, question := range mod.Questions {
			at := fmt.Sprintf("modules[%d].questions[%d]", m, q)
			if b := question.Binding; b.ClassifierID != "" {
				add(b.ClassifierID, at+".classifierId")
			} else if b.Rule != nil {
				for i, id := range b.Rule.ClassifierIDs {
					add(id, fmt.Sprintf("%s.classifierRule.classifierIds[%d]", at, i))
				}
			}
		}
	}
	return out
}

// Bound reports whether a question of the form is bound to classifiers.
func (f *Form) Bound() bool {
	for _, m := range f.Modules {
		for _, q := range m.Questions {
			if q.Binding.bound() {
				return true
			}
		}
	}
	return false
}

// AutoAnswers are the answers the form's bound questions get from a
// conversation's classifier results: result says a classifier's result
// ("true", "false" or a label; anything but "true" is false) and whether
// it has one. A question whose classifiers do not all have a result is
// left out, open for a person.
func (f *Form) AutoAnswers(result func(classifierID string) (string, bool)) []Answer {
	var out []Answer
	for _, m := range f.Modules {
		for _, q := range m.Questions {
			b := q.Binding
			ids := b.classifierIDs()
			if len(ids) == 0 {
				continue
			}
			trues, known := 0, true
			for _, id := range ids {
				v, ok := result(id)
				known = known && ok
				if v == "true" {
					trues++
				}
			}
			if !known {
				continue
			}
			holds := trues == len(ids) // one classifier, or all
			if b.Rule != nil && b.Rule.Operator == RuleAny {
				holds = trues > 0
			}
			if b.Rule != nil && b.Rule.Operator == RuleNone {
				holds = trues == 0
			}
			value := b.WhenFalse
			if holds {
				value = b.WhenTrue
			}
			tag, _ := q.tag(value)
			out = append(out, Answer{QuestionID: q.ID, TagIDs: []string{tag.ID}})
		}
	}
	return out
}
