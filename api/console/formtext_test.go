package console

import (
	"strings"
	"testing"

	"github.com/earshot/earshot/internal/invalid"
	"github.com/earshot/earshot/pipeline/quality"
	"github.com/earshot/earshot/warehouse/catalog"
)

func TestParseFormText(t *testing.T) {
	t.Parallel()
	f, err := parseFormText(formTextExample, testClassifiers)
	if err != nil {
		t.Fatal(err)
	}
	if len(f.Modules) != 2 || f.Modules[0].Name != "Opening" || len(f.Modules[0].Questions) != 2 || len(f.Modules[1].Questions) != 2 {
		t.Fatalf("the example: %+v", f)
	}
	greeted := f.Modules[0].Questions[0]
	if greeted.Text != "Greeted the customer?" || !greeted.Required || greeted.Weight != 2 || len(greeted.Tags) != 3 ||
		*greeted.Tags[0].ScoredValue != 1 || greeted.Tags[2].Value != "N/A" || greeted.Tags[2].ScoredValue != nil {
		t.Errorf("the first question: %+v", greeted)
	}
	if notes := f.Modules[1].Questions[1]; notes.Type != quality.TypeFillIn || notes.Weight != 0 || notes.Required {
		t.Errorf("the fill-in question: %+v", notes)
	}
	if err := f.Prepare(func() string { return "id" }); err != nil {
		t.Errorf("the example breaks the form's rules: %v", err)
	}
	for text, want := range map[string]string{
		"":                                     "form has no module",
		"Greeted? | Yes=1":                     "line 1 is a question before any module",
		"# A\nGreeted? | weight two | Yes=1":   "line 2 has a weight that is no number",
		"# A\n\nGreeted? | Yes=one":            "line 3 has an answer whose score is no number",
		"# A\nGreeted? | Yes=1, , No=0":        "line 2 has an empty answer",
		"# A\nHow? | multiple | category Soft": "",
		"# A\nGreeted? | when Greeting Yes / No | Yes=1, No=0":      "line 2 has a binding that is not “when CLASSIFIER: YES / NO”",
		"# A\nGreeted? | when Greeting: Yes | Yes=1, No=0":          "line 2 has a binding that is not",
		"# A\nGreeted? | when Greeting: / No | Yes=1, No=0":         "line 2 has a binding that is not",
		"# A\nGreeted? | when Welcome: Yes / No | Yes=1, No=0":      "line 2 names no classifier of the organization: \"Welcome\"",
		"# A\nKept? | when any of Refund, Nope: No / Yes | Yes, No": "line 2 names no classifier of the organization: \"Nope\"",
		"# A\nGreeted? | when greeting: Yes / No | Yes=1, No=0":     "",
	} {
		_, err := parseFormText(text, testClassifiers)
		f, isField := invalid.As(err)
		switch {
		case want == "" && err != nil:
			t.Errorf("%q: %v", text, err)
		case want != "" && (!isField || !strings.HasPrefix(f.Sentence(), want)):
			t.Errorf("%q: %v, want %q…", text, err, want)
		}
	}
}

// Whatever is typed, the parser answers a form or a mistake, never a
// panic.
func FuzzParseFormText(f *testing.F) {
	f.Add(formTextExample)
	f.Add("# A\nQ | weight 1e309 | a=NaN, b=-0, =")
	f.Add("# A\nQ | when none of Greeting, Refund: a / b | a, b")
	f.Fuzz(func(t *testing.T, text string) {
		form, err := parseFormText(text, testClassifiers)
		if err == nil && len(form.Modules) == 0 {
			t.Fatal("a form without modules parsed")
		}
	})
}

func TestParseTemplateText(t *testing.T) {
	t.Parallel()
	levels, err := parseLevels("sam.supervisor, ana.analyst\n\nanyone\n")
	if err != nil || len(levels) != 2 || strings.Join(levels[0].Assignees, "+") != "sam.supervisor+ana.analyst" || len(levels[1].Assignees) != 0 {
		t.Errorf("levels: %+v %v", levels, err)
	}
	if _, err := parseLevels("sam,,ana"); err == nil || !strings.Contains(err.Error(), "line 1 has an empty user name") {
		t.Errorf("an empty user name: %v", err)
	}
	questions, err := parseBossQuestions("Action plan established? | No, Yes\nFair? | Yes")
	if err != nil || len(questions) != 2 || questions[0].QuestionText != "Action plan established?" || strings.Join(questions[0].Answers, "+") != "No+Yes" {
		t.Errorf("questions: %+v %v", questions, err)
	}
	if _, err := parseBossQuestions("\nFair?"); err == nil || !strings.Contains(err.Error(), "line 2 has no answers") {
		t.Errorf("a question without answers: %v", err)
	}
}

// Whatever is typed, the template's parsers answer or refuse, never
// panic.
func FuzzParseTemplateText(f *testing.F) {
	f.Add("sam, ana\nanyone", "Fair? | Yes, No")
	f.Fuzz(func(t *testing.T, levels, questions string) {
		parseLevels(levels)
		parseBossQuestions(questions)
	})
}

// A form written back as an outline reads as the same form, its bindings
// naming their classifiers.
func TestFormTextRoundTrip(t *testing.T) {
	t.Parallel()
	bound := formTextExample + "\n# Automated\nGreeted by name? | weight 2 | when Greeting: Yes / No | Yes=1, No=0\n" +
		"Kept the customer? | when none of Cancellation, Refund: Yes / No | Yes=1, No=0"
	for _, text := range []string{formTextExample, bound} {
		f, err := parseFormText(text, testClassifiers)
		if err != nil {
			t.Fatal(err)
		}
		if got := formText(f, testClassifiers); got != text {
			t.Errorf("written back:\n%s\nwant\n%s", got, text)
		}
	}
}

// A binding reads its classifiers by name into their ids: one, or a rule
// over several; the form's rules then hold.
func TestFormTextBindings(t *testing.T) {
	t.Parallel()
	f, err := parseFormText("# A\nGreeted? | when GREETING: Yes / No | Yes=1, No=0\nKept? | when any of Cancellation, Refund: No / Yes | Yes=1, No=0",
		testClassifiers)
	if err != nil {
		t.Fatal(err)
	}
	greeted, kept := f.Modules[0].Questions[0].Binding, f.Modules[0].Questions[1].Binding
	if greeted.ClassifierID != "c-greeting" || greeted.WhenTrue != "Yes" || greeted.WhenFalse != "No" || greeted.Rule != nil {
		t.Errorf("greeted: %+v", greeted)
	}
	if kept.Rule == nil || kept.Rule.Operator != quality.RuleAny || strings.Join(kept.Rule.ClassifierIDs, "+") != "c-cancel+c-refund" ||
		kept.WhenTrue != "No" || kept.WhenFalse != "Yes" || kept.ClassifierID != "" {
		t.Errorf("kept: %+v %+v", kept, kept.Rule)
	}
	f.AutoScore = true
	if err := f.Prepare(func() string { return "id" }); err != nil {
		t.Errorf("the bound form breaks the form's rules: %v", err)
	}
}

// testClassifiers are an organization's classifiers for the outline's
// bindings.
var testClassifiers = newClassifierNames([]catalog.Classifier{{ID: "c-greeting", Name: "Greeting"}, {ID: "c-cancel", Name: "Cancellation"},
	{ID: "c-refund", Name: "Refund"}})
