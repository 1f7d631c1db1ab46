package api

import (
	"context"
	"encoding/json"
	"math"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"
)

// qaForm is a form of two modules: Opening (greeting, weight 2: Yes 1, No
// 0, N/A unscored; empathy, weight 3: Always 2, Sometimes 1, Never 0) and
// Wrap-up (resolution, weight 5: Yes 1 / No 0; notes, a fill-in).
const qaForm = `{"name":"Call quality","description":"Our QA form","customerTypes":["New","Existing"],"modules":[
 {"name":"Opening","questions":[
  {"questionText":"Greeted the customer?","required":true,"weight":2,"tags":[{"value":"Yes","scoredValue":1},{"value":"No","scoredValue":0},{"value":"N/A"}]},
  {"questionText":"Showed empathy?","weight":3,"category":"Soft skills","tags":[{"value":"Always","scoredValue":2},{"value":"Sometimes","scoredValue":1},{"value":"Never","scoredValue":0}]}]},
 {"name":"Wrap-up","questions":[
  {"questionText":"Resolved the issue?","required":true,"weight":5,"tags":[{"value":"Yes","scoredValue":1},{"value":"No","scoredValue":0}]},
  {"questionText":"Notes","type":"FillIn"}]}]}`

type evaluationBody struct {
	ID               string
	EvaluationNumber int
	Status           string
	Source           string
	Score            *float64
	SubmittedDate    *string
	CallSummary      *string
	Questions        []struct {
		ID, QuestionText string
		Answers          []struct {
			WeightedScore     *float64
			FillInAnswerValue *string
			AnswerTags        []struct{ Tag struct{ Value string } }
			AutoTagIDs        []string
			ReviewedBy        *string
		}
	}
	Agent        *struct{ ID string }
	Analyst      *struct{ UserName, Role string }
	Metadata     *struct{ ID string }
	CustomerType *struct{ Name string }
}

// An evaluation from assignment to submission, its weighted scores checked
// by hand, and the vendor's two GETs over it.
func TestEvaluationLifecycle(t *testing.T) {
	t.Parallel()
	e := newTestEnv(t, Options{})
	tok := e.token(t)
	f := buildOrg(t, e, tok, "")
	conv := mustStatus(t, e.upload("/TextMedia/Upload", tok, meta("AgentCode", "A100", "HierarchyId", f.team),
		file("c.json", `{"messages":[{"participant":"Agent","text":"Hello, how can I help?"},{"participant":"Customer","text":"My bill is wrong."}]}`)), 200).id(t)
	other := mustStatus(t, e.upload("/TextMedia/Upload", tok, meta("LocaleId", 1033), file("d.json", `{"messages":[{"participant":"Customer","text":"Hi"}]}`)), 200).id(t)
	e.runIngest(t)

	r := mustStatus(t, e.jsonReq("POST", "/Evaluations/Forms", tok, qaForm), http.StatusCreated)
	var form formView
	json.Unmarshal(r.Body.Bytes(), &form)
	if len(form.Modules) != 2 || len(form.Modules[0].Questions) != 2 || form.Modules[0].Questions[0].Tags[0].ID == "" || len(form.CustomerTypes) != 2 {
		t.Fatalf("form: %s", r.Body)
	}
	greet, empathy := form.Modules[0].Questions[0], form.Modules[0].Questions[1]
	resolved, notes := form.Modules[1].Questions[0], form.Modules[1].Questions[1]
	mustStatus(t, e.jsonReq("POST", "/Evaluations/Forms", tok, qaForm), 400) // the name is taken
	if got := mustStatus(t, e.jsonReq("GET", "/Evaluations/Forms/"+form.ID, tok, nil), 200).id(t); got != form.ID {
		t.Fatalf("form by id: %s", got)
	}

	assign := func(conversation string) evaluationBody {
		t.Helper()
		var ev evaluationBody
		json.Unmarshal(mustStatus(t, e.jsonReq("POST", "/Evaluations", tok, map[string]any{"formId": form.ID, "conversationId": conversation,
			"analyst": "ann"}), http.StatusCreated).Body.Bytes(), &ev)
		return ev
	}
	ev := assign(conv)
	if ev.EvaluationNumber != 1 || ev.Status != "NotStarted" || ev.Agent == nil || ev.Agent.ID != f.agent || ev.Analyst == nil ||
		ev.Analyst.UserName != "ann" || ev.Analyst.Role != "Supervisor" || ev.Metadata == nil || ev.Metadata.ID != conv || len(ev.Questions) != 4 {
		t.Fatalf("assigned: %+v", ev)
	}

	// Answers: greeting Yes (2·1/1 = 2), empathy Sometimes (3·1/2 = 1.5),
	// resolution No (5·0 = 0): Opening 3.5 of 5 = 70 %, Wrap-up 0 of 5 =
	// 0 %, the form 3.5 of 10 = 35 %.
	answers := map[string]any{"callSummary": "Billing dispute, not resolved.", "customerType": "existing", "answers": []map[string]any{
		{"questionId": greet.ID, "tagIds": []string{"yes"}},
		{"questionId": empathy.ID, "tagIds": []string{"Sometimes"}, "note": "Rushed at the end."},
		{"questionId": resolved.ID, "tagIds": []string{resolved.Tags[1].ID}},
		{"questionId": notes.ID, "fillInAnswerValue": "Escalate to billing."},
	}}
	r = mustStatus(t, e.jsonReq("PUT", "/Evaluations/"+ev.ID+"/Answers", tok, answers), 200)
	json.Unmarshal(r.Body.Bytes(), &ev)
	weighted := map[string]float64{}
	for _, q := range ev.Questions {
		if len(q.Answers) == 1 && q.Answers[0].WeightedScore != nil {
			weighted[q.QuestionText] = *q.Answers[0].WeightedScore
		}
	}
	want := map[string]float64{"Greeted the customer?": 2, "Showed empathy?": 1.5, "Resolved the issue?": 0}
	for q, w := range want {
		if math.Abs(weighted[q]-w) > 1e-9 {
			t.Errorf("%s: weighted score %v, want %v", q, weighted[q], w)
		}
	}
	if ev.Status != "InProgress" || ev.Score == nil || math.Abs(*ev.Score-35) > 1e-9 || ev.CustomerType == nil || ev.CustomerType.Name != "Existing" ||
		ev.SubmittedDate != nil || len(weighted) != 3 {
		t.Fatalf("answered: %s", r.Body)
	}

	// Bad answers name themselves; a required question left open stops
	// a submission of another evaluation.
	for body, field := range map[string]string{
		`{"answers":[{"questionId":"` + greet.ID + `","tagIds":["Maybe"]}]}`:    "answers[0].tagIds",
		`{"answers":[{"questionId":"nope"}]}`:                                   "answers[0].questionId",
		`{"answers":[{"questionId":"` + notes.ID + `","tagIds":["Yes"]}]}`:      "answers[0].tagIds",
		`{"answers":[{"questionId":"` + greet.ID + `","tagIds":["Yes","No"]}]}`: "answers[0].tagIds",
		`{"customerType":"Enterprise"}`:                                         "customerType",
	} {
		r := mustStatus(t, e.jsonReq("PUT", "/Evaluations/"+ev.ID+"/Answers", tok, body), 400)
		if errs, _ := r.json(t)["errors"].(map[string]any); errs[field] == nil {
			t.Errorf("%s: %s lacks %s", body, r.Body, field)
		}
	}
	second := assign(other)
	mustStatus(t, e.jsonReq("PUT", "/Evaluations/"+second.ID+"/Answers", tok, `{"answers":[{"questionId":"`+empathy.ID+`","tagIds":["Always"]}]}`), 200)
	r = mustStatus(t, e.jsonReq("POST", "/Evaluations/"+second.ID+"/Submit", tok, nil), 400)
	if !strings.Contains(r.Body.String(), "Greeted the customer?") || !strings.Contains(r.Body.String(), "Resolved the issue?") {
		t.Errorf("missing required answers: %s", r.Body)
	}
	json.Unmarshal(mustStatus(t, e.jsonReq("POST", "/Evaluations/"+second.ID+"/Submit", tok, `{"noValue":true}`), 200).Body.Bytes(), &second)
	if second.Status != "NoValue" || second.SubmittedDate == nil || second.EvaluationNumber != 2 {
		t.Errorf("no value: %+v", second)
	}

	json.Unmarshal(mustStatus(t, e.jsonReq("POST", "/Evaluations/"+ev.ID+"/Submit", tok, nil), 200).Body.Bytes(), &ev)
	if ev.Status != "Completed" || ev.SubmittedDate == nil {
		t.Fatalf("submitted: %+v", ev)
	}
	mustStatus(t, e.jsonReq("PUT", "/Evaluations/"+ev.ID+"/Answers", tok, answers), http.StatusConflict)
	mustStatus(t, e.jsonReq("POST", "/Evaluations/"+ev.ID+"/Submit", tok, nil), http.StatusConflict)

	// The vendor's GETs: by number, filters, and the module scores.
	list := func(target string) []evaluationBody {
		t.Helper()
		var out []evaluationBody
		json.Unmarshal(mustStatus(t, e.jsonReq("GET", target, tok, nil), 200).Body.Bytes(), &out)
		return out
	}
	today := time.Now().UTC().Format(time.DateOnly)
	if got := list("/Evaluations?StartDate=" + today + "&EndDate=" + today); len(got) != 2 || got[0].ID != ev.ID || got[1].ID != second.ID {
		t.Errorf("all: %+v", got)
	}
	if got := list("/evaluations?status=completed"); len(got) != 1 || got[0].ID != ev.ID {
		t.Errorf("completed: %+v", got)
	}
	if got := list("/Evaluations?LastId=1&PageSize=5"); len(got) != 1 || got[0].ID != second.ID {
		t.Errorf("after number 1: %+v", got)
	}
	if got := list("/Evaluations?EndDate=2025-01-01"); len(got) != 0 {
		t.Errorf("before any: %+v", got)
	}
	var modules []struct {
		EvaluationNumber int
		Modules          []struct {
			Name      string
			Score     float64
			Questions []struct {
				Question string
				Answers  []struct {
					FillInAnswer *string
					AnswerTags   []struct{ TagValue string }
				}
			}
		}
	}
	json.Unmarshal(mustStatus(t, e.jsonReq("GET", "/Evaluations/Modules?HierarchyId="+f.region, tok, nil), 200).Body.Bytes(), &modules)
	if len(modules) != 1 || modules[0].EvaluationNumber != 1 || len(modules[0].Modules) != 2 ||
		math.Abs(modules[0].Modules[0].Score-70) > 1e-9 || modules[0].Modules[1].Score != 0 ||
		modules[0].Modules[0].Questions[1].Answers[0].AnswerTags[0].TagValue != "Sometimes" ||
		*modules[0].Modules[1].Questions[1].Answers[0].FillInAnswer != "Escalate to billing." {
		t.Errorf("by module under the region: %+v", modules)
	}
	for target, field := range map[string]string{
		"/Evaluations?Status=Done":                                              "Status",
		"/Evaluations?LastId=abc":                                               "LastId",
		"/Evaluations?StartDate=2025-10-05&EndDate=2025-10-01":                  "EndDate",
		"/Evaluations/Modules?HierarchyId=" + strconv.Itoa(7):                   "HierarchyId",
		"/Evaluations/Modules?HierarchyId=00000000-0000-0000-0000-000000000000": "HierarchyId",
	} {
		r := mustStatus(t, e.jsonReq("GET", target, tok, nil), 400)
		if errs, _ := r.json(t)["errors"].(map[string]any); errs[field] == nil {
			t.Errorf("%s: %s lacks %s", target, r.Body, field)
		}
	}

	// Assignment mistakes; other organizations and users out of reach see
	// nothing.
	for body, field := range map[string]string{
		`{"conversationId":"` + conv + `","analyst":"ann"}`:                                                    "formId",
		`{"formId":"` + form.ID + `","conversationId":"` + conv + `","analyst":"nobody"}`:                      "analyst",
		`{"formId":"` + form.ID + `","conversationId":"00000000-0000-0000-0000-000000000000","analyst":"ann"}`: "conversationId",
	} {
		r := mustStatus(t, e.jsonReq("POST", "/Evaluations", tok, body), 400)
		if errs, _ := r.json(t)["errors"].(map[string]any); errs[field] == nil {
			t.Errorf("%s: %s lacks %s", body, r.Body, field)
		}
	}
	orgB, _ := e.cat.Orgs.CreateOrganization(context.Background(), "globex")
	tokB := e.orgToken(t, orgB.ID)
	mustStatus(t, e.jsonReq("GET", "/Evaluations/"+ev.ID, tokB, nil), 404)
	mustStatus(t, e.jsonReq("GET", "/Evaluations/Forms/"+form.ID, tokB, nil), 404)
	if got := mustStatus(t, e.jsonReq("GET", "/Evaluations", tokB, nil), 200).Body.String(); got != "[]" {
		t.Errorf("another organization: %s", got)
	}
	h := bearer(tok)
	h.Set("X-Earshot-User", "raj") // no hierarchy permissions
	if r := e.do("GET", "/Evaluations/"+ev.ID, nil, h); r.Code != 404 {
		t.Errorf("a user without access: %d", r.Code)
	}
}
