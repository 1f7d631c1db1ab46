package console

import (
	"strings"
	"testing"

	"github.com/earshot/earshot/internal/invalid"
	"github.com/earshot/earshot/pipeline/quality"
)

func TestParseFormText(t *testing.T) {
	t.Parallel()
	f, err := parseFormText(formTextExample)
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
	} {
		_, err := parseFormText(text)
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
	f.Fuzz(func(t *testing.T, text string) {
		form, err := parseFormText(text)
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

// A form written back as an outline reads as the same form.
func TestFormTextRoundTrip(t *testing.T) {
	t.Parallel()
	f, err := parseFormText(formTextExample)
	if err != nil {
		t.Fatal(err)
	}
	if got := formText(f); got != formTextExample {
		t.Errorf("written back:\n%s\nwant\n%s", got, formTextExample)
	}
}
