package api

import (
	"context"
	"encoding/json"
	"net/http"
	"slices"
	"testing"
	"time"
)

type workflowBody struct {
	InteractionID    string
	EvaluationNumber int
	WorkflowID       string
	WorkflowName     string
	WorkflowStatus   string
	CurrentLevel     *int
	Levels           []struct {
		Level              int
		Assignees          []string
		Completer, Outcome *string
		Notes              *string
	}
	BossModule struct {
		Name      string
		Questions []struct {
			QuestionText string
			Answers      []string
		}
	}
}

// A review workflow over a completed evaluation, advanced level by level
// to completion: assignees, outcomes and notes recorded, the boss module
// answered, the evaluation PendingReview then ReviewComplete.
func TestWorkflowToCompletion(t *testing.T) {
	t.Parallel()
	e := newTestEnv(t, Options{})
	tok := e.token(t)
	f := buildOrg(t, e, tok, "")
	conv := mustStatus(t, e.upload("/TextMedia/Upload", tok, meta("AgentCode", "A100", "HierarchyId", f.team),
		file("c.json", `{"messages":[{"participant":"Customer","text":"My bill is wrong."}]}`)), 200).id(t)
	e.runIngest(t)

	// A completed evaluation to review.
	var form formView
	json.Unmarshal(mustStatus(t, e.jsonReq("POST", "/Evaluations/Forms", tok, qaForm), http.StatusCreated).Body.Bytes(), &form)
	evaluation := mustStatus(t, e.jsonReq("POST", "/Evaluations", tok, map[string]any{"formId": form.ID, "conversationId": conv, "analyst": "ann"}),
		http.StatusCreated).id(t)
	mustStatus(t, e.jsonReq("PUT", "/Evaluations/"+evaluation+"/Answers", tok, map[string]any{"answers": []map[string]any{
		{"questionId": form.Modules[0].Questions[0].ID, "tagIds": []string{"Yes"}}, {"questionId": form.Modules[1].Questions[0].ID, "tagIds": []string{"Yes"}}}}), 200)
	mustStatus(t, e.jsonReq("POST", "/Evaluations/"+evaluation+"/Submit", tok, nil), 200)
	status := func() string {
		t.Helper()
		v, _ := mustStatus(t, e.jsonReq("GET", "/Evaluations/"+evaluation, tok, nil), 200).json(t)["status"].(string)
		return v
	}

	template := mustStatus(t, e.jsonReq("POST", "/Workflows/Templates", tok, map[string]any{"name": "Reconsideration", "workflowType": "APT",
		"levels":     []map[string]any{{"assignees": []string{"ann"}}, {"assignees": []string{f.user2}}},
		"bossModule": map[string]any{"name": "Calibration", "questions": []map[string]any{{"questionText": "Action plan established", "answers": []string{"No", "Yes"}}}}}),
		http.StatusCreated).id(t)
	r := mustStatus(t, e.jsonReq("GET", "/Workflows/Templates", tok, nil), 200)
	var templates []templateView
	json.Unmarshal(r.Body.Bytes(), &templates)
	if len(templates) != 1 || !slices.Equal(templates[0].Levels[1].Assignees, []string{"raj"}) || templates[0].BossModule.ID == "" {
		t.Fatalf("templates: %s", r.Body)
	}

	var w workflowBody
	json.Unmarshal(mustStatus(t, e.jsonReq("POST", "/Workflows", tok, map[string]any{"templateId": template, "evaluationId": evaluation}),
		http.StatusCreated).Body.Bytes(), &w)
	if w.InteractionID != conv || w.EvaluationNumber != 1 || w.WorkflowStatus != "Open" || w.WorkflowName != "Reconsideration" ||
		w.CurrentLevel == nil || *w.CurrentLevel != 0 || len(w.Levels) != 2 || w.Levels[0].Completer != nil || status() != "PendingReview" {
		t.Fatalf("started: %+v (evaluation %s)", w, status())
	}
	mustStatus(t, e.jsonReq("POST", "/Workflows", tok, map[string]any{"templateId": template, "conversationId": conv}), http.StatusConflict)

	advance := func(body map[string]any, code int) workflowBody {
		t.Helper()
		var out workflowBody
		json.Unmarshal(mustStatus(t, e.jsonReq("POST", "/Workflows/"+w.WorkflowID+"/Advance", tok, body), code).Body.Bytes(), &out)
		return out
	}
	advance(map[string]any{"completer": "raj"}, 400) // not level 0's assignee
	w = advance(map[string]any{"completer": "ann", "notes": "Score looks low; second opinion."}, 200)
	if *w.CurrentLevel != 1 || *w.Levels[0].Completer != "ann" || *w.Levels[0].Outcome != "Continue Workflow" || w.WorkflowStatus != "Open" {
		t.Fatalf("after level 0: %+v", w)
	}
	advance(map[string]any{"completer": "raj"}, 400) // the boss module unanswered
	advance(map[string]any{"completer": "raj", "bossAnswers": []map[string]any{{"questionText": "Action plan established", "answers": []string{"Maybe"}}}}, 400)
	w = advance(map[string]any{"completer": "raj", "notes": "Agreed with QA.",
		"bossAnswers": []map[string]any{{"questionText": "action plan established", "answers": []string{"yes"}}}}, 200)
	if w.WorkflowStatus != "Closed" || w.CurrentLevel != nil || *w.Levels[1].Completer != "raj" || *w.Levels[1].Outcome != "Completed" ||
		*w.Levels[1].Notes != "Agreed with QA." || !slices.Equal(w.BossModule.Questions[0].Answers, []string{"Yes"}) || status() != "ReviewComplete" {
		t.Fatalf("completed: %+v (evaluation %s)", w, status())
	}
	advance(map[string]any{"completer": "raj"}, http.StatusConflict)

	// The vendor's GET: the window, the cursor, the page bounds.
	today := time.Now().UTC().Format(time.DateOnly)
	list := func(target string) []workflowBody {
		t.Helper()
		var out []workflowBody
		json.Unmarshal(mustStatus(t, e.jsonReq("GET", target, tok, nil), 200).Body.Bytes(), &out)
		return out
	}
	if got := list("/Workflows?StartDate=" + today + "&EndDate=" + today); len(got) != 1 || got[0].WorkflowID != w.WorkflowID || got[0].WorkflowStatus != "Closed" {
		t.Errorf("today: %+v", got)
	}
	if got := list("/Workflows?DateReference=InteractionDate&EndDate=2025-01-01"); len(got) != 0 {
		t.Errorf("before the conversation: %+v", got)
	}
	if got := list("/Workflows?LastId=" + w.WorkflowID); len(got) != 0 {
		t.Errorf("after the last: %+v", got)
	}
	for _, target := range []string{"/Workflows?PageSize=101", "/Workflows?DateReference=Tomorrow", "/Workflows?LastId=7"} {
		mustStatus(t, e.jsonReq("GET", target, tok, nil), 400)
	}
	orgB, _ := e.cat.Orgs.CreateOrganization(context.Background(), "globex")
	mustStatus(t, e.jsonReq("GET", "/Workflows/"+w.WorkflowID, e.orgToken(t, orgB.ID), nil), 404)
}
