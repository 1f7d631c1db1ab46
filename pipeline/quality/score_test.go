package quality

import (
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/earshot/earshot/internal/invalid"
)

func value(v float64) *float64 { return &v }

// form is a two-module form: Opening (greeting weight 2, yes 1 / no 0 /
// n-a; identity weight 1, multi-select of two half points) and Notes (a
// required fill-in).
func form(t *testing.T) *Form {
	t.Helper()
	f := &Form{
		Modules: []Module{
			{Name: "Opening", Questions: []Question{
				{Text: "Greeted the customer?", Weight: 2, Required: true, Tags: []Tag{
					{Value: "Yes", ScoredValue: value(1)}, {Value: "No", ScoredValue: value(0)}, {Value: "N/A"}}},
				{Text: "Verified identity?", Weight: 1, MultiSelect: true, Tags: []Tag{
					{Value: "Name", ScoredValue: value(0.5)}, {Value: "Account", ScoredValue: value(0.5)}}},
			}},
			{Name: "Notes", Questions: []Question{{Text: "What happened?", Type: "fillin", Required: true}}},
		},
		CustomerTypes: []CustomerType{{Name: "New"}, {Name: "Existing"}},
	}
	n := 0
	if err := f.Prepare(func() string { n++; return fmt.Sprintf("id-%d", n) }); err != nil {
		t.Fatal(err)
	}
	return f
}

// Scores checked by hand against the rule in Score's comment.
func TestScore(t *testing.T) {
	f := form(t)
	greet, identity, notes := f.Modules[0].Questions[0].ID, f.Modules[0].Questions[1].ID, f.Modules[1].Questions[0].ID
	text := "Billing question."
	for _, tc := range []struct {
		name          string
		answers       []Answer
		greet, ident  float64 // weighted scores; -1: not scored
		opening, over float64
	}{
		// Greeting Yes: 2·1/1 = 2; identity Name: 1·0.5/0.5 = 1; 3 of 3.
		{"all yes", []Answer{{QuestionID: greet, TagIDs: []string{"yes"}}, {QuestionID: identity, TagIDs: []string{"Name"}}}, 2, 1, 100, 100},
		// Greeting No: 2·0/1 = 0; both identity tags: 1·min(1/0.5, 1) = 1; 1 of 3.
		{"no greeting", []Answer{{QuestionID: greet, TagIDs: []string{"No"}}, {QuestionID: identity, TagIDs: []string{"Name", "Account"}}}, 0, 1, 100.0 / 3, 100.0 / 3},
		// N/A leaves the greeting out: 1·1 of 1.
		{"n/a", []Answer{{QuestionID: greet, TagIDs: []string{"N/A"}}, {QuestionID: identity, TagIDs: []string{"account"}}}, -1, 1, 100, 100},
		// Only the greeting answered: 2 of 2; the fill-in is never scored.
		{"partial", []Answer{{QuestionID: greet, TagIDs: []string{"Yes"}}, {QuestionID: notes, FillIn: &text}}, 2, -1, 100, 100},
		{"nothing", nil, -1, -1, 0, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			answers, err := f.Normalize(tc.answers)
			if err != nil {
				t.Fatal(err)
			}
			s := f.Score(answers)
			for id, want := range map[string]float64{greet: tc.greet, identity: tc.ident} {
				got, ok := s.Questions[id]
				if !ok {
					got = -1
				}
				if math.Abs(got-want) > 1e-9 {
					t.Errorf("question %s: %v, want %v", id, got, want)
				}
			}
			if math.Abs(s.Modules[f.Modules[0].ID]-tc.opening) > 1e-9 || math.Abs(s.Overall-tc.over) > 1e-9 || s.Modules[f.Modules[1].ID] != 0 {
				t.Errorf("modules %v overall %v, want opening %v overall %v", s.Modules, s.Overall, tc.opening, tc.over)
			}
		})
	}
}

func TestNormalizeAndUnanswered(t *testing.T) {
	f := form(t)
	greet, identity, notes := f.Modules[0].Questions[0].ID, f.Modules[0].Questions[1].ID, f.Modules[1].Questions[0].ID
	text := "x"
	for _, tc := range []struct {
		answers []Answer
		path    string
	}{
		{[]Answer{{QuestionID: "nope"}}, "answers[0].questionId"},
		{[]Answer{{QuestionID: greet, TagIDs: []string{"Maybe"}}}, "answers[0].tagIds"},
		{[]Answer{{QuestionID: greet, TagIDs: []string{"Yes", "No"}}}, "answers[0].tagIds"},
		{[]Answer{{QuestionID: greet, FillIn: &text}}, "answers[0].fillInAnswerValue"},
		{[]Answer{{QuestionID: notes, TagIDs: []string{"Yes"}}}, "answers[0].tagIds"},
		{[]Answer{{QuestionID: identity}, {QuestionID: identity}}, "answers[1].questionId"},
	} {
		_, err := f.Normalize(tc.answers)
		var fe *invalid.Field
		if !errors.As(err, &fe) || fe.Path != tc.path {
			t.Errorf("%+v: %v, want an error at %s", tc.answers, err, tc.path)
		}
	}
	answers, _ := f.Normalize([]Answer{{QuestionID: identity, TagIDs: []string{"Name"}}})
	if got := f.Unanswered(answers); strings.Join(got, "|") != "Greeted the customer?|What happened?" {
		t.Errorf("unanswered: %v", got)
	}
}

func TestPrepareRejects(t *testing.T) {
	for _, tc := range []struct {
		form Form
		path string
	}{
		{Form{}, "modules"},
		{Form{Modules: []Module{{Name: "M"}}}, "modules[0].questions"},
		{Form{Modules: []Module{{Questions: []Question{{Text: "q", Tags: []Tag{{Value: "a"}}}}}}}, "modules[0].name"},
		{Form{Modules: []Module{{Name: "M", Questions: []Question{{Text: "q"}}}}}, "modules[0].questions[0].tags"},
		{Form{Modules: []Module{{Name: "M", Questions: []Question{{Text: "q", Weight: -1, Tags: []Tag{{Value: "a"}}}}}}}, "modules[0].questions[0].weight"},
		{Form{Modules: []Module{{Name: "M", Questions: []Question{{Text: "q", Weight: 1e308, Tags: []Tag{{Value: "a"}}}}}}}, "modules[0].questions[0].weight"},
		{Form{Modules: []Module{{Name: "M", Questions: []Question{{Text: "q", Tags: []Tag{{Value: "a", ScoredValue: value(1e300)}}}}}}}, "modules[0].questions[0].tags[0].scoredValue"},
		{Form{Modules: []Module{{Name: "M", Questions: []Question{{Text: "q", Type: "Essay"}}}}}, "modules[0].questions[0].type"},
		{Form{Modules: []Module{{Name: "M", Questions: []Question{{Text: "q", Tags: []Tag{{Value: "a"}, {Value: "A"}}}}}}}, "modules[0].questions[0].tags[1].value"},
		{Form{Modules: []Module{{Name: "M", Questions: []Question{{Text: "q", Tags: []Tag{{Value: "a"}}}}}}, CustomerTypes: []CustomerType{{Name: ""}}}, "customerTypes[0]"},
	} {
		err := tc.form.Prepare(func() string { return "id" })
		var fe *invalid.Field
		if !errors.As(err, &fe) || fe.Path != tc.path {
			t.Errorf("%+v: %v, want an error at %s", tc.form, err, tc.path)
		}
	}
}
