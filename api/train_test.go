package api

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/earshot/earshot/api/oauth"
)

// TestTrainClassifiers: stored conversations and texts train one
// classifier per label through POST /Conversations/Classifiers/Train (a
// job); reviews of a trained classifier retrain it; examples that cannot
// train are 400s naming what is wrong, another organization's
// conversations among them.
func TestTrainClassifiers(t *testing.T) {
	t.Parallel()
	e := newTestEnv(t, Options{})
	tok := e.token(t)
	kinds := map[string]string{}
	for i := range 20 {
		kind, text := "Hotels", fmt.Sprintf("I need a hotel room for %d nights with a late check in", i+1)
		if i%2 == 1 {
			kind, text = "Flights", fmt.Sprintf("Book a one way flight for %d people with a window seat", i+1)
		}
		id := mustStatus(t, e.upload("/TextMedia/Upload", tok, meta("LocaleId", 1033), file(fmt.Sprintf("c%d.json", i),
			`{"messages":[{"participant":"Customer","text":"`+text+`"}]}`)), 200).id(t)
		kinds[id] = kind
	}
	e.runIngest(t)
	var examples []string
	for id, kind := range kinds {
		examples = append(examples, `{"conversationId":"`+id+`","labels":["`+kind+`"]}`)
	}
	for i := range 6 {
		examples = append(examples, fmt.Sprintf(`{"text":"will it rain in city %d tomorrow","labels":[]}`, i))
	}
	train := func(token, body string, status int) response {
		t.Helper()
		return mustStatus(t, e.jsonReq("POST", "/Conversations/Classifiers/Train", token, body), status)
	}
	finished := func(r response) map[string]any {
		t.Helper()
		job, _ := r.json(t)["jobId"].(string)
		if job == "" || r.Header().Get("Location") != "/Jobs/"+job {
			t.Fatalf("%s %v", r.Body, r.Header())
		}
		e.jobs.Wait()
		v := mustStatus(t, e.jsonReq("GET", "/Jobs/"+job, tok, nil), 200).json(t)
		if v["status"] != "succeeded" || v["job"] != "train" {
			t.Fatalf("job %v", v)
		}
		return v["counts"].(map[string]any)
	}
	counts := finished(train(tok, `{"examples":[`+strings.Join(examples, ",")+`],"folds":3,"categoryName":"process"}`, http.StatusAccepted))
	if counts["examples"] != float64(26) || counts["labels"] != float64(2) || counts["classifiers"] != float64(2) {
		t.Fatalf("counts %v", counts)
	}
	listed := mustStatus(t, e.jsonReq("GET", "/Conversations/Classifiers?ClassifierTypes=Core%20AI%20Model", tok, nil), 200)
	var classifiers []struct{ ID, Name, CategoryName string }
	json.Unmarshal(listed.Body.Bytes(), &classifiers)
	ids := map[string]string{}
	for _, c := range classifiers {
		ids[c.Name] = c.ID
		if c.CategoryName != "Process" {
			t.Errorf("%s in category %s", c.Name, c.CategoryName)
		}
	}
	if len(ids) != 2 || ids["Hotels"] == "" || ids["Flights"] == "" {
		t.Fatalf("classifiers %s", listed.Body)
	}
	got := mustStatus(t, e.jsonReq("GET", "/Conversations/Classifiers/"+ids["Hotels"], tok, nil), 200).json(t)
	def, _ := got["definition"].(map[string]any)
	evaluation, _ := def["evaluation"].(map[string]any)
	if def["model"] != "trained" || def["label"] != "Hotels" || evaluation["folds"] != float64(3) || evaluation["examples"] != float64(26) || evaluation["positives"] != float64(10) {
		t.Fatalf("Hotels %v", got)
	}

	// Reviews of Hotels: three hotel conversations yes, three flight ones no.
	yes, no := 0, 0
	for id, kind := range kinds {
		if kind == "Hotels" && yes < 3 || kind == "Flights" && no < 3 {
			mustStatus(t, e.jsonReq("POST", "/ModelResults/Reviews", tok, fmt.Sprintf(`{"conversationId":"%s","eventType":"HumanReview","reviewer":"qa","modelResults":[{"modelId":"%s","result":%v}]}`,
				id, ids["Hotels"], kind == "Hotels")), 200)
			if kind == "Hotels" {
				yes++
			} else {
				no++
			}
		}
	}
	counts = finished(train(tok, `{"fromReviews":true,"folds":3,"activate":false}`, http.StatusAccepted))
	if counts["examples"] != float64(6) || counts["classifiers"] != float64(1) {
		t.Fatalf("retrained from reviews: %v", counts)
	}
	got = mustStatus(t, e.jsonReq("GET", "/Conversations/Classifiers/"+ids["Hotels"], tok, nil), 200).json(t)
	if got["version"] != float64(2) || got["isActive"] != false {
		t.Fatalf("Hotels after retraining, not activated: %v", got)
	}
	// Activated once its figures were looked at.
	mustStatus(t, e.jsonReq("PUT", "/Conversations/Classifiers/"+ids["Hotels"], tok, `{"isActive":true}`), 200)

	// Examples that cannot train, each refused naming it.
	some := strings.Join(examples[:20], ",")
	var hotelsOnly []string
	for id, kind := range kinds {
		if kind == "Hotels" {
			hotelsOnly = append(hotelsOnly, `{"conversationId":"`+id+`","labels":["Hotels"]}`)
		}
	}
	orgB, _ := e.cat.Orgs.CreateOrganization(context.Background(), "globex")
	tokB, _ := e.tokens.IssueForOperator(orgB.ID, oauth.Scope)
	for _, tc := range []struct {
		token, body, want string
	}{
		{tok, `{}`, `"examples":["is required`},
		{tok, `{"examples":[{"labels":["A"]}]}`, "examples[0]: give one of turns, text or conversationId"},
		{tok, `{"examples":[` + some + `,{"text":" ?! ","labels":["Hotels"]}]}`, "conversation 21 (examples[20]) has no words to learn from"},
		{tok, `{"examples":[` + strings.Join(hotelsOnly, ",") + `]}`, `every conversation has label \"Hotels\": training needs conversations without it too (one class only)`},
		{tok, `{"examples":[{"conversationId":"00000000-0000-0000-0000-000000000001","labels":["A"]},` + some + `]}`, "examples[0].conversationId: no processed conversation with this id in your organization"},
		{tok, `{"examples":[` + some + `],"folds":1}`, "folds"},
		{tokB, `{"examples":[` + some + `]}`, "conversationId: no processed conversation with this id in your organization"},
	} {
		r := train(tc.token, tc.body, 400)
		if !strings.Contains(r.Body.String(), tc.want) {
			t.Errorf("%.80s: %s, want %q", tc.body, r.Body, tc.want)
		}
	}
}
