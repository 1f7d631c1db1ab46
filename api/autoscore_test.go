package api

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
)

// autoFormBody is an auto-scored form: greeting bound to the Greeting
// classifier (weight 1), keeping the customer to a rule (weight 3: neither
// a cancellation nor a refund), and resolution left to a person.
func autoFormBody(greeting, cancel, refund string) string {
	return `{"name":"Auto QA","autoScore":true,"modules":[{"name":"Call","questions":[
  {"questionText":"Greeted the customer?","weight":1,"tags":[{"value":"Yes","scoredValue":1},{"value":"No","scoredValue":0}],
   "classifierId":"` + greeting + `","answerWhenTrue":"Yes","answerWhenFalse":"No"},
  {"questionText":"Kept the customer?","weight":3,"tags":[{"value":"Yes","scoredValue":1},{"value":"No","scoredValue":0}],
   "classifierRule":{"operator":"none","classifierIds":["` + cancel + `","` + refund + `"]},"answerWhenTrue":"Yes","answerWhenFalse":"No"},
  {"questionText":"Resolved?","weight":5,"tags":[{"value":"Yes","scoredValue":1},{"value":"No","scoredValue":0}]}]}]}`
}

// A form's bindings are checked where it is created: an unknown classifier
// or an answer that is not one of the question's tags is a 400 naming the
// place.
func TestAutoScoreFormValidation(t *testing.T) {
	t.Parallel()
	e := newTestEnv(t, Options{})
	tok := e.token(t)
	greeting := mustStatus(t, e.jsonReq("POST", "/Conversations/Classifiers", tok, classifierBody("Greeting", "Classifier", "Process",
		`{"groups":[{"rules":[{"phrases":["hello"],"speaker":"Agent"}]}]}`)), http.StatusCreated).id(t)
	unknown := "01a21bd0-0000-7000-8000-000000000000"
	for _, tt := range []struct {
		name, body, field, says string
	}{
		{"unknown classifier", autoFormBody(greeting, greeting, unknown), "modules[0].questions[1].classifierRule.classifierIds[1]", "is not a classifier of your organization."},
		{"not an id", autoFormBody("greeting", greeting, greeting), "modules[0].questions[0].classifierId", "is not a classifier of your organization."},
		{"answer not among the tags", strings.Replace(autoFormBody(greeting, greeting, greeting), `"answerWhenFalse":"No"`, `"answerWhenFalse":"Maybe"`, 1),
			"modules[0].questions[0].answerWhenFalse", "must be one of the question's answers: Yes, No."},
		{"nothing bound", `{"name":"x","autoScore":true,"modules":[{"name":"m","questions":[{"questionText":"q","tags":[{"value":"Yes"}]}]}]}`,
			"autoScore", "needs a question bound to a classifier"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r := mustStatus(t, e.jsonReq("POST", "/Evaluations/Forms", tok, tt.body), http.StatusBadRequest)
			errs, _ := r.json(t)["errors"].(map[string]any)
			if says, _ := errs[tt.field].([]any); len(says) == 0 || !strings.Contains(says[0].(string), tt.says) {
				t.Fatalf("errors %v, want %s: %s", errs, tt.field, tt.says)
			}
		})
	}
}

// Every ingested conversation gets its Auto evaluation, listed apart from
// people's; a reviewer confirms one answer and overrides another, which
// rescores the evaluation, keeps what the classifiers said, and counts in
// the form's agreement; the classifier's own result does not change.
func TestAutoScoredEvaluations(t *testing.T) {
	t.Parallel()
	e := newTestEnv(t, Options{})
	tok := e.token(t)
	f := buildOrg(t, e, tok, "")
	classifier := func(name, phrase string) string {
		return mustStatus(t, e.jsonReq("POST", "/Conversations/Classifiers", tok, classifierBody(name, "Classifier", "Process",
			`{"groups":[{"rules":[{"phrases":["`+phrase+`"]}]}]}`)), http.StatusCreated).id(t)
	}
	greeting, cancel, refund := classifier("Greeting", "hello"), classifier("Cancellation", "cancel"), classifier("Refund", "refund")
	var form formView
	json.Unmarshal(mustStatus(t, e.jsonReq("POST", "/Evaluations/Forms", tok, autoFormBody(greeting, cancel, refund)), http.StatusCreated).Body.Bytes(), &form)
	if !form.AutoScore || form.Modules[0].Questions[0].ClassifierID != greeting || form.Modules[0].Questions[1].Rule.Operator != "none" {
		t.Fatalf("form %+v", form)
	}
	chats := []string{
		`{"messages":[{"participant":"Agent","text":"Hello there"},{"participant":"Customer","text":"I want to cancel"}]}`, // Yes, No: 1 of 4
		`{"messages":[{"participant":"Agent","text":"Hello"},{"participant":"Customer","text":"All fine, thanks"}]}`,       // Yes, Yes: 4 of 4
		`{"messages":[{"participant":"Agent","text":"Hi"},{"participant":"Customer","text":"A refund please"}]}`,           // No, No: 0
	}
	var ids []string
	for i, c := range chats {
		ids = append(ids, mustStatus(t, e.upload("/TextMedia/Upload", tok, meta("AgentCode", "A100", "HierarchyId", f.team),
			file(string(rune('a'+i))+".json", c)), 200).id(t))
	}
	e.runIngest(t)

	list := func(query string) []evaluationBody {
		var out []evaluationBody
		json.Unmarshal(mustStatus(t, e.jsonReq("GET", "/Evaluations"+query, tok, nil), 200).Body.Bytes(), &out)
		return out
	}
	auto := list("?Source=Auto&PageSize=100")
	if len(auto) != 3 || len(list("?source=human")) != 0 || len(list("?Status=AutoScored")) != 3 {
		t.Fatalf("%d Auto evaluations: %+v", len(auto), auto)
	}
	mustStatus(t, e.jsonReq("GET", "/Evaluations?Source=Robot", tok, nil), http.StatusBadRequest)
	want := map[string]float64{ids[0]: 25, ids[1]: 100, ids[2]: 0}
	weighted := func(ev evaluationBody, q int) float64 { // the answer's weighted score: greeting 1 or 0, keeping 3 or 0
		if a := ev.Questions[q].Answers; len(a) == 1 && a[0].WeightedScore != nil {
			return *a[0].WeightedScore
		}
		return -100
	}
	var first evaluationBody
	for _, ev := range auto {
		if ev.Status != "AutoScored" || ev.Source != "Auto" || ev.Analyst != nil || ev.Agent == nil || ev.Agent.ID != f.agent ||
			ev.Score == nil || *ev.Score != want[ev.Metadata.ID] || len(ev.Questions) != 3 || len(ev.Questions[2].Answers) != 0 ||
			weighted(ev, 0)+weighted(ev, 1) != want[ev.Metadata.ID]*4/100 {
			t.Fatalf("evaluation %+v, want score %v", ev, want[ev.Metadata.ID])
		}
		if ev.Metadata.ID == ids[0] {
			first = ev
		}
	}

	// A reviewer confirms the greeting and overrides "kept": the score is
	// now 4 of 4; the auto answers stay beside.
	greet, kept := first.Questions[0].ID, first.Questions[1].ID
	review := map[string]any{"answers": []map[string]any{{"questionId": greet, "tagIds": []string{"Yes"}}, {"questionId": kept, "tagIds": []string{"Yes"}}}}
	mustStatus(t, e.jsonReq("PUT", "/UserHierarchy/"+f.user+"/"+f.site, tok, map[string]any{"accessLevel": "Edit", "permissions": []string{"Chat"}}), 200)
	body, _ := json.Marshal(review)
	h := bearer(tok)
	h.Set("X-Earshot-User", "ann") // a Supervisor
	h.Set("Content-Type", "application/json")
	r := mustStatus(t, e.do("PUT", "/Evaluations/"+first.ID+"/Review", bytes.NewReader(body), h), 200)
	var reviewed evaluationBody
	json.Unmarshal(r.Body.Bytes(), &reviewed)
	if reviewed.Score == nil || *reviewed.Score != 100 || reviewed.Questions[1].Answers[0].ReviewedBy == nil ||
		*reviewed.Questions[1].Answers[0].ReviewedBy != f.user || len(reviewed.Questions[1].Answers[0].AutoTagIDs) != 1 {
		t.Fatalf("reviewed: %s", r.Body)
	}
	// An Auto evaluation is reviewed, not answered; a person's is not reviewed.
	mustStatus(t, e.jsonReq("PUT", "/Evaluations/"+first.ID+"/Answers", tok, review), http.StatusConflict)
	// The question without a binding has no auto answer to review.
	mustStatus(t, e.jsonReq("PUT", "/Evaluations/"+first.ID+"/Review", tok,
		map[string]any{"answers": []map[string]any{{"questionId": first.Questions[2].ID, "tagIds": []string{"Yes"}}}}), http.StatusBadRequest)

	var agreement []agreementView
	json.Unmarshal(mustStatus(t, e.jsonReq("GET", "/Evaluations/Forms/"+form.ID+"/Agreement", tok, nil), 200).Body.Bytes(), &agreement)
	if len(agreement) != 2 || agreement[0].Compared != 1 || agreement[0].Agreed != 1 || *agreement[0].AgreementRate != 1 ||
		agreement[1].Compared != 1 || agreement[1].Agreed != 0 || *agreement[1].AgreementRate != 0 || agreement[1].Reviews != 1 {
		t.Fatalf("agreement %+v", agreement)
	}
	// The override never changes the classifier's own result.
	results := mustStatus(t, e.jsonReq("GET", "/ModelResults/Conversation?conversationIds="+ids[0]+"&modelIds="+cancel, tok, nil), 200).Body.String()
	if !strings.Contains(results, `"modelName":"Cancellation","result":true`) {
		t.Fatalf("model results after the override: %s", results)
	}
}
