package demo

import (
	"context"
	"fmt"
)

// demoForm is the demo's QA form: the steps a reviewer checks on a call.
var demoForm = map[string]any{"name": "Call quality", "description": "The demo's QA form", "modules": []map[string]any{
	{"name": "Opening", "questions": []map[string]any{
		{"questionText": "Greeted the customer?", "required": true, "weight": 2, "tags": yesNo()},
		{"questionText": "Verified the customer's identity?", "required": true, "weight": 3, "tags": yesNo()}}},
	{"name": "Resolution", "questions": []map[string]any{
		{"questionText": "Resolved the issue?", "required": true, "weight": 5, "tags": yesNo()},
		{"questionText": "Notes", "type": "FillIn"}}},
}}

func yesNo() []map[string]any {
	return []map[string]any{{"value": "Yes", "scoredValue": 1}, {"value": "No", "scoredValue": 0}}
}

// Quality gives the demo QA work: its form, an evaluation of each of the
// conversations assigned to the console's user, and a review workflow
// template with two levels.
func (a API) Quality(ctx context.Context, conversations []string) error {
	form, err := a.Create(ctx, "/Evaluations/Forms", demoForm)
	if err != nil {
		return err
	}
	for _, id := range conversations {
		if _, err := a.Create(ctx, "/Evaluations", map[string]any{"formId": form, "conversationId": id, "analyst": ConsoleUser}); err != nil {
			return fmt.Errorf("assign an evaluation: %w", err)
		}
	}
	_, err = a.Create(ctx, "/Workflows/Templates", map[string]any{"name": "Supervisor review",
		"levels": []map[string]any{{"assignees": []string{"sam.supervisor"}}, {"assignees": []string{ConsoleUser}}},
		"bossModule": map[string]any{"name": "Calibration",
			"questions": []map[string]any{{"questionText": "Action plan established", "answers": []string{"No", "Yes"}}}}})
	return err
}

// autoQuestions are the demo's auto-scored form's questions: each bound
// to starter classifiers by name (classifierId or, for a rule,
// classifierRule's ids), but the last, which a reviewer answers.
var autoQuestions = []struct {
	text     string
	weight   int
	operator string // "" for one classifier
	names    []string
}{
	{"Greeted the customer?", 2, "", []string{"Greeting"}},
	{"Verified the customer's identity?", 3, "", []string{"Identity verification"}},
	{"Showed empathy?", 2, "", []string{"Empathy statements"}},
	{"Kept the call free of dead air?", 1, "none", []string{"Dead air"}},
	{"Handled it without an escalation or a cancellation?", 2, "none", []string{"Escalation request", "Cancellation intent"}},
	{"Left the customer without negative sentiment?", 2, "none", []string{"Negative customer sentiment"}},
	{"Resolved the issue?", 5, "", nil},
}

// AutoQuality creates the demo's auto-scored form over the example
// classifiers (names → ids), so that every conversation ingested after it
// gets its Auto evaluation.
func (a API) AutoQuality(ctx context.Context, classifiers map[string]string) error {
	var questions []map[string]any
	for _, q := range autoQuestions {
		question := map[string]any{"questionText": q.text, "weight": q.weight, "tags": yesNo()}
		var ids []string
		for _, name := range q.names {
			id, ok := classifiers[name]
			if !ok {
				return fmt.Errorf("the auto-scored form binds %q, which the organization lacks", name)
			}
			ids = append(ids, id)
		}
		switch {
		case q.operator != "":
			question["classifierRule"] = map[string]any{"operator": q.operator, "classifierIds": ids}
		case len(ids) == 1:
			question["classifierId"] = ids[0]
		}
		if len(ids) > 0 {
			question["answerWhenTrue"], question["answerWhenFalse"] = "Yes", "No"
		}
		questions = append(questions, question)
	}
	_, err := a.Create(ctx, "/Evaluations/Forms", map[string]any{"name": "Automated QA", "autoScore": true,
		"description": "Answered by the example classifiers on every conversation; a reviewer answers the rest and calibrates",
		"modules":     []map[string]any{{"name": "Call", "questions": questions}}})
	return err
}
