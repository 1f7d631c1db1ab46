package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
)

// createAutoForm creates, through the API, an auto-scored form of
// questions bound to the organization's active classifiers in turn: every
// third question to a rule over two of them, the others to one. Its
// answers then cost ingest what a real scorecard would.
func createAutoForm(ctx context.Context, base, bearer string, questions int) error {
	var classifiers []struct {
		ID string `json:"id"`
	}
	if err := apiJSON(ctx, base, bearer, "GET", "/Conversations/Classifiers?PageSize=1000", nil, &classifiers); err != nil {
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
	return apiJSON(ctx, base, bearer, "POST", "/Evaluations/Forms", form, nil)
}

// apiJSON sends a JSON request to the server and reads its JSON answer
// into out (nil: drops it); a status of 300 or more is an error.
func apiJSON(ctx context.Context, base, bearer, method, path string, in, out any) error {
	var body io.Reader
	if in != nil {
		data, err := json.Marshal(in)
		if err != nil {
			return err
		}
		body = bytes.NewReader(data)
	}
	req, err := http.NewRequestWithContext(ctx, method, base+path, body)
	if err != nil {
		return err
	}
	req.Header.Set("Authorization", bearer)
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		return err
	}
	if resp.StatusCode >= 300 {
		return fmt.Errorf("%s %s: %s %s", method, path, resp.Status, data)
	}
	if out == nil {
		return nil
	}
	return json.Unmarshal(data, out)
}
