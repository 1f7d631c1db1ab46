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

// Bound reports whether the question says anything of a binding.
func (b Binding) Bound() bool {
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
	if !b.Bound() {
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
			if q.Binding.Bound() {
				return true
			}
		}
	}
	return false
}

// Scorecard is a form's bound questions made ready to answer
// conversation after conversation: the classifiers they read, each once,
// and each question's classifiers and the tag and weighted score of each
// of its two answers, found once.
type Scorecard struct {
	classifiers []string
	questions   []boundQuestion
}

type boundQuestion struct {
	id          string
	classifiers []int       // places in Scorecard.classifiers
	operator    string      // RuleAll for one classifier
	answers     [2]boundTag // when false, when true
	weight      float64
}

// boundTag is an answer of a bound question: its tag, and the question's
// weighted score when chosen (not scored: it leaves the score).
type boundTag struct {
	id       string
	weighted float64
	scored   bool
}

// Scorecard is the form's bound questions, in the form's order.
func (f *Form) Scorecard() *Scorecard {
	s := &Scorecard{}
	for m := range f.Modules {
		for i := range f.Modules[m].Questions {
			q := &f.Modules[m].Questions[i]
			b := q.Binding
			ids := b.classifierIDs()
			if len(ids) == 0 {
				continue
			}
			bq := boundQuestion{id: q.ID, operator: RuleAll, weight: q.Weight}
			if b.Rule != nil {
				bq.operator = b.Rule.Operator
			}
			for _, id := range ids {
				k := slices.Index(s.classifiers, id)
				if k < 0 {
					k = len(s.classifiers)
					s.classifiers = append(s.classifiers, id)
				}
				bq.classifiers = append(bq.classifiers, k)
			}
			for k, value := range []string{b.WhenFalse, b.WhenTrue} {
				tag, _ := q.tag(value)
				ws, scored := q.weighted([]string{tag.ID})
				bq.answers[k] = boundTag{tag.ID, ws, scored}
			}
			s.questions = append(s.questions, bq)
		}
	}
	return s
}

// A conversation's results as a scorecard keeps them: a character a bound
// classifier, in the scorecard's order (the form is never changed, so the
// string stays readable).
const (
	ResultFalse = '0' // false, or a label
	ResultTrue  = '1'
	NoResult    = '-' // the classifier gave none (it failed, or is not active)
)

// Results are a conversation's results of the scorecard's classifiers:
// result says a classifier's result ("true", "false" or a label; anything
// but "true" is false) and whether it has one.
func (s *Scorecard) Results(result func(classifierID string) (string, bool)) string {
	out := make([]byte, len(s.classifiers))
	for i, id := range s.classifiers {
		switch v, ok := result(id); {
		case !ok:
			out[i] = NoResult
		case v == "true":
			out[i] = ResultTrue
		default:
			out[i] = ResultFalse
		}
	}
	return string(out)
}

// With is results with one classifier's result replaced (a
// reclassification's); results as they were when the scorecard does not
// read the classifier.
func (s *Scorecard) With(results, classifierID, result string) string {
	k := slices.Index(s.classifiers, classifierID)
	if k < 0 || k >= len(results) {
		return results
	}
	b := []byte(results)
	b[k] = ResultFalse
	if result == "true" {
		b[k] = ResultTrue
	}
	return string(b)
}

// Reads reports whether the scorecard reads the classifier.
func (s *Scorecard) Reads(classifierID string) bool {
	return slices.Contains(s.classifiers, classifierID)
}

// Score is the score the answers of results give by the form's formula
// (Form.Score: the questions left open count neither way), and whether any
// question is answered.
func (s *Scorecard) Score(results string) (score float64, answered bool) {
	var sum, weight float64
	s.each(results, func(q *boundQuestion, a boundTag) {
		answered = true
		if a.scored {
			sum += a.weighted
			weight += q.weight
		}
	})
	return percent(sum, weight), answered
}

// Answers are the answers results give, as a person's would be written
// (the chosen tag's id), in the form's order. A question whose classifiers
// do not all have a result is left open for a person.
func (s *Scorecard) Answers(results string) []Answer {
	var out []Answer
	s.each(results, func(q *boundQuestion, a boundTag) {
		out = append(out, Answer{QuestionID: q.id, TagIDs: []string{a.id}})
	})
	return out
}

// each calls fn with each question that results answer, and its answer
// by its rule.
func (s *Scorecard) each(results string, fn func(*boundQuestion, boundTag)) {
	for i := range s.questions {
		q := &s.questions[i]
		trues, known := 0, true
		for _, k := range q.classifiers {
			known = known && k < len(results) && results[k] != NoResult
			if k < len(results) && results[k] == ResultTrue {
				trues++
			}
		}
		if !known {
			continue
		}
		var holds bool
		switch q.operator {
		case RuleAny:
			holds = trues > 0
		case RuleNone:
			holds = trues == 0
		default:
			holds = trues == len(q.classifiers)
		}
		if holds {
			fn(q, q.answers[1])
		} else {
			fn(q, q.answers[0])
		}
	}
}
