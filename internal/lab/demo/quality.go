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
	form, err := a.create(ctx, "/Evaluations/Forms", demoForm)
	if err != nil {
		return err
	}
	for _, id := range conversations {
		if _, err := a.create(ctx, "/Evaluations", map[string]any{"formId": form, "conversationId": id, "analyst": ConsoleUser}); err != nil {
			return fmt.Errorf("assign an evaluation: %w", err)
		}
	}
	_, err = a.create(ctx, "/Workflows/Templates", map[string]any{"name": "Supervisor review",
		"levels": []map[string]any{{"assignees": []string{"sam.supervisor"}}, {"assignees": []string{ConsoleUser}}},
		"bossModule": map[string]any{"name": "Calibration",
			"questions": []map[string]any{{"questionText": "Action plan established", "answers": []string{"No", "Yes"}}}}})
	return err
}
