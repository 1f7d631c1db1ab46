package quality

import (
	"cmp"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/earshot/earshot/internal/invalid"
)

// boundForm is an auto-scored form: greeting bound to one classifier,
// escalation to a rule, and an unbound question left to a person.
func boundForm(t *testing.T, rule string) *Form {
	t.Helper()
	yesNo := func() []Tag {
		return []Tag{{Value: "Yes", ScoredValue: value(1)}, {Value: "No", ScoredValue: value(0)}}
	}
	f := &Form{AutoScore: true, Modules: []Module{{Name: "Call", Questions: []Question{
		{Text: "Greeted the customer?", Weight: 2, Tags: yesNo(), Binding: Binding{ClassifierID: "greeting", WhenTrue: "yes", WhenFalse: "No"}},
		{Text: "Avoided an escalation?", Weight: 3, Tags: yesNo(),
			Binding: Binding{Rule: &Rule{Operator: rule, ClassifierIDs: []string{"escalation", "supervisor"}}, WhenTrue: "Yes", WhenFalse: "No"}},
		{Text: "Resolved?", Weight: 5, Tags: yesNo()},
	}}}}
	n := 0
	if err := f.Prepare(func() string { n++; return fmt.Sprintf("id-%d", n) }); err != nil {
		t.Fatal(err)
	}
	return f
}

// A scorecard answers bound questions from the classifiers' results, by
// their rule, and scores them by the same formula as a person's answers; a
// question whose classifier has no result stays open.
func TestScorecard(t *testing.T) {
	for _, tc := range []struct {
		rule    string
		results map[string]string
		answers string  // greeting, escalation: the values given ("-": left open)
		score   float64 // by hand: (2·greeting + 3·escalation) over the weights answered
	}{
		{"none", map[string]string{"greeting": "true", "escalation": "false", "supervisor": "false"}, "Yes Yes", 100},
		{"none", map[string]string{"greeting": "false", "escalation": "true", "supervisor": "false"}, "No No", 0},
		{"any", map[string]string{"greeting": "true", "escalation": "false", "supervisor": "true"}, "Yes Yes", 100},
		{"any", map[string]string{"greeting": "false", "escalation": "false", "supervisor": "false"}, "No No", 0},
		{"ALL", map[string]string{"greeting": "true", "escalation": "true", "supervisor": "false"}, "Yes No", 40},
		{"all", map[string]string{"greeting": "Positive", "escalation": "true", "supervisor": "true"}, "No Yes", 60}, // a label is not true
		{"all", map[string]string{"greeting": "true", "escalation": "true"}, "Yes -", 100},                           // supervisor has no result
		{"all", map[string]string{}, "- -", 0},
	} {
		t.Run(fmt.Sprint(tc.rule, tc.results), func(t *testing.T) {
			f := boundForm(t, tc.rule)
			card := f.Scorecard()
			results := card.Results(func(id string) (string, bool) { v, ok := tc.results[id]; return v, ok })
			score, answered := card.Score(results)
			answers := card.Answers(results)
			got := map[string]string{}
			for _, a := range answers {
				_, q, _ := f.Question(a.QuestionID)
				got[q.ID] = strings.Join(q.TagValues(a.TagIDs), ",")
			}
			if answered != (len(answers) > 0) || len(results) != 3 {
				t.Errorf("results %q, answered %v", results, answered)
			}
			var gave []string
			for _, q := range f.Modules[0].Questions[:2] {
				gave = append(gave, cmp.Or(got[q.ID], "-"))
			}
			if strings.Join(gave, " ") != tc.answers {
				t.Errorf("answers %v, want %s", gave, tc.answers)
			}
			if _, ok := got[f.Modules[0].Questions[2].ID]; ok {
				t.Error("the unbound question was answered")
			}
			if score != tc.score {
				t.Errorf("score %v, want %v", score, tc.score)
			}
			// The form's formula over the same answers, as a person's.
			if normalized, err := f.Normalize(answers); err != nil || f.Score(normalized).Overall != score {
				t.Errorf("Form.Score %v (%v), the scorecard %v", f.Score(normalized).Overall, err, score)
			}
		})
	}
}

// A binding that cannot answer is refused, naming where it is.
func TestBindingErrors(t *testing.T) {
	yesNo := []Tag{{Value: "Yes", ScoredValue: value(1)}, {Value: "No", ScoredValue: value(0)}}
	for _, tc := range []struct {
		name     string
		question Question
		auto     bool
		path     string
		message  string
	}{
		{"an answer not among the tags", Question{Text: "q", Tags: yesNo, Binding: Binding{ClassifierID: "c", WhenTrue: "Yes", WhenFalse: "Maybe"}},
			false, "modules[0].questions[0].answerWhenFalse", "must be one of the question's answers: Yes, No."},
		{"no answer when true", Question{Text: "q", Tags: yesNo, Binding: Binding{ClassifierID: "c", WhenFalse: "No"}},
			false, "modules[0].questions[0].answerWhenTrue", "must be one of the question's answers"},
		{"answers without a classifier", Question{Text: "q", Tags: yesNo, Binding: Binding{WhenTrue: "Yes", WhenFalse: "No"}},
			false, "modules[0].questions[0].classifierId", "is required with answerWhenTrue"},
		{"a classifier and a rule", Question{Text: "q", Tags: yesNo, Binding: Binding{ClassifierID: "c", Rule: &Rule{Operator: "all", ClassifierIDs: []string{"d"}}, WhenTrue: "Yes", WhenFalse: "No"}},
			false, "modules[0].questions[0].classifierRule", "must be absent when classifierId is given"},
		{"a rule of no kind", Question{Text: "q", Tags: yesNo, Binding: Binding{Rule: &Rule{Operator: "most", ClassifierIDs: []string{"d"}}, WhenTrue: "Yes", WhenFalse: "No"}},
			false, "modules[0].questions[0].classifierRule.operator", "must be all, any or none."},
		{"a rule of nothing", Question{Text: "q", Tags: yesNo, Binding: Binding{Rule: &Rule{Operator: "any"}, WhenTrue: "Yes", WhenFalse: "No"}},
			false, "modules[0].questions[0].classifierRule.classifierIds", "must list the classifiers"},
		{"a blank id in a rule", Question{Text: "q", Tags: yesNo, Binding: Binding{Rule: &Rule{Operator: "any", ClassifierIDs: []string{"d", " "}}, WhenTrue: "Yes", WhenFalse: "No"}},
			false, "modules[0].questions[0].classifierRule.classifierIds[1]", "must be a classifier id."},
		{"a fill-in", Question{Text: "q", Type: "FillIn", Binding: Binding{ClassifierID: "c", WhenTrue: "Yes", WhenFalse: "No"}},
			false, "modules[0].questions[0].classifierId", "a FillIn question is answered by a person"},
		{"auto-scored with nothing bound", Question{Text: "q", Tags: yesNo}, true, "autoScore", "needs a question bound to a classifier"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := &Form{AutoScore: tc.auto, Modules: []Module{{Name: "m", Questions: []Question{tc.question}}}}
			err := f.Prepare(func() string { return "id" })
			var fe *invalid.Field
			if !errors.As(err, &fe) || fe.Path != tc.path || !strings.Contains(fe.Message, tc.message) {
				t.Fatalf("error %v, want %s: %s", err, tc.path, tc.message)
			}
		})
	}
}

// The classifiers a form reads are each named once, where first bound.
func TestBoundClassifiers(t *testing.T) {
	got := boundForm(t, "any").BoundClassifiers()
	want := []BoundClassifier{{"greeting", "modules[0].questions[0].classifierId"},
		{"escalation", "modules[0].questions[1].classifierRule.classifierIds[0]"}, {"supervisor", "modules[0].questions[1].classifierRule.classifierIds[1]"}}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("classifiers %v, want %v", got, want)
	}
}

// A reclassification replaces one classifier's result: the answers and
// score follow, and a classifier the scorecard does not read changes
// nothing.
func TestScorecardWith(t *testing.T) {
	card := boundForm(t, "none").Scorecard()
	results := card.Results(func(id string) (string, bool) { return "false", true }) // greeted no; kept yes
	if score, _ := card.Score(results); score != 60 {                                // weights 2 and 3
		t.Fatalf("score %v, want 3 of 5", score)
	}
	results = card.With(results, "greeting", "true")
	if score, _ := card.Score(results); score != 100 || card.With(results, "other", "true") != results || !card.Reads("supervisor") || card.Reads("other") {
		t.Fatalf("after greeting became true: %q scored %v", results, score)
	}
	results = card.With(results, "supervisor", "true")
	if score, _ := card.Score(results); score != 40 {
		t.Fatalf("after a supervisor was asked for: %q scored %v, want 2 of 5", results, score)
	}
}
