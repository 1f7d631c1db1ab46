package main

import (
	"context"
	"fmt"

	"github.com/earshot/earshot/internal/lab/demo"
)

// createAutoForm creates, through the API, an auto-scored form of
// questions bound to the organization's active classifiers in turn: every
// third question to a rule over two of them, the others to one. Its
// answers then cost ingest what a real scorecard would.
func createAutoForm(ctx context.Context, api demo.API, questions int) error {
	var classifiers []struct {
		ID string `json:"id"`
	}
	if err := api.Get(ctx, "/Conversations/Classifiers?PageSize=1000", &classifiers); err != nil {
		return err
	}
	if len(classifiers) < 2 {
		return fmt.Errorf("an auto-scored form needs two classifiers or more, the organization has %d", len(classifiers))
	}
	var qs []map[string]any
	for i := range questions {
		q := map[string]any{"questionText": fmt.Sprintf("Question %d?", i+1), "weight": 1 + i%3,
			"tags":           []map[string]any{{"value": "Yes", "scoredValue": 1}, {"value": "No", "scoredValue": 0}},
			"answerWhenTrue": "Yes", "answerWhenFalse": "No"}
		first, second := classifiers[i%len(classifiers)].ID, classifiers[(i+1)%len(classifiers)].ID
		if i%3 == 2 {
			q["classifierRule"] = map[string]any{"operator": []string{"all", "any", "none"}[i/3%3], "classifierIds": []string{first, second}}
		} else {
			q["classifierId"] = first
		}
		qs = append(qs, q)
	}
	form := map[string]any{"name": "Bench auto QA", "autoScore": true, "modules": []map[string]any{{"name": "Call", "questions": qs}}}
	_, err := api.Create(ctx, "/Evaluations/Forms", form)
	return err
}
