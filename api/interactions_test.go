package api

import (
	"context"
	"encoding/json"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"
)

// interactionView is what the tests read of an /Interactions item.
type interactionView struct {
	ID     string
	Status string
	Agent  *struct {
		ID, FullName, AgentCode, AgentEmail string
	}
	ClassifierResults *[]struct {
		Name   string
		Result *string
	}
	Transcriptions *[]struct {
		LanguageCode  string
		Transcription []string
	}
	MetadataExtended map[string]string
	Duration         int64
	MessageCount     *int
	MediaType        string
}

// result is the item's current result of a classifier, by name.
func (v interactionView) result(name string) string {
	if v.ClassifierResults == nil {
		return "<none>"
	}
	for _, r := range *v.ClassifierResults {
		if r.Name == name && r.Result != nil {
			return *r.Result
		}
	}
	return "<missing>"
}

// The deprecated /Interactions operations answer from the data of
// /Metadata, /ModelResults (human reviews included) and the transcripts:
// filters by status, Eddy Effect result and hierarchy, the vendor's page
// bounds, one interaction in any status, and nothing of another
// organization.
func TestInteractions(t *testing.T) {
	t.Parallel()
	e := newTestEnv(t, Options{})
	tok := e.token(t)
	f := buildOrg(t, e, tok, "")
	eddy := mustStatus(t, e.jsonReq("POST", "/Conversations/Classifiers", tok, classifierBody("ML-EddyEffect", "Classifier", "Process",
		`{"groups":[{"rules":[{"phrases":["still waiting","called again"],"speaker":"Customer"}]}]}`)), http.StatusCreated).id(t)
	chat := func(customer string) string {
		return `{"messages":[{"participant":"Agent","text":"Thanks for calling.","timestamp":"2025-10-03T10:00:00Z"},` +
			`{"participant":"Customer","text":"` + customer + `","timestamp":"2025-10-03T10:00:04Z"}]}`
	}
	stuck := mustStatus(t, e.upload("/TextMedia/Upload", tok, meta("AgentCode", "A100", "HierarchyId", f.team, "ClientCallId", "call-1",
		"ExtendedMetadataValues", map[string]any{"ANI": "18888375309"}), file("stuck.json", chat("I called again and I am still waiting."))), 200).id(t)
	fine := mustStatus(t, e.upload("/TextMedia/Upload", tok, meta("LocaleId", 1033), file("fine.json", chat("Where is my order?"))), 200).id(t)
	e.runIngest(t)
	pending := mustStatus(t, e.upload("/TextMedia/Upload", tok, meta("LocaleId", 1033), file("pending.json", chat("Hello."))), 200).id(t)

	today := time.Now().UTC().Format(time.DateOnly)
	list := func(target string) []interactionView {
		t.Helper()
		var out []interactionView
		if err := json.Unmarshal(mustStatus(t, e.jsonReq("GET", target, tok, nil), 200).Body.Bytes(), &out); err != nil {
			t.Fatal(err)
		}
		return out
	}
	window := "StartDate=" + today + "&EndDate=" + today
	all := list("/Interactions?" + window)
	if ids := []string{all[0].ID, all[1].ID}; len(all) != 2 || !slices.Equal(ids, []string{stuck, fine}) {
		t.Fatalf("processed interactions: %+v", all)
	}
	got := all[0]
	if got.Agent == nil || got.Agent.ID != f.agent || got.Agent.FullName != "bo Ng" || got.Agent.AgentEmail != "bo@example.com" || got.Agent.AgentCode != "A100" {
		t.Errorf("agent %+v", got.Agent)
	}
	if got.result("ML-EddyEffect") != "True" || all[1].result("ML-EddyEffect") != "False" {
		t.Errorf("results: %+v / %+v", *got.ClassifierResults, *all[1].ClassifierResults)
	}
	if got.Transcriptions == nil || len(*got.Transcriptions) != 1 ||
		!slices.Equal((*got.Transcriptions)[0].Transcription, []string{"00:00:00 Agent: Thanks for calling.", "00:00:04 Customer: I called again and I am still waiting."}) {
		t.Errorf("transcriptions %+v", got.Transcriptions)
	}
	if got.MetadataExtended["ANI"] != "18888375309" || got.MediaType != "Chat" || got.Duration != 0 || got.MessageCount == nil || *got.MessageCount != 2 {
		t.Errorf("record fields %+v", got)
	}
	if all[1].Agent != nil {
		t.Errorf("an interaction without an agent has one: %+v", all[1].Agent)
	}

	// Filters: the Eddy Effect result, the status, the hierarchy (POST).
	if v := list("/interactions?" + window + "&eddyEffect=TRUE"); len(v) != 1 || v[0].ID != stuck {
		t.Errorf("EddyEffect=true: %+v", v)
	}
	if v := list("/Interactions?" + window + "&EddyEffect=false&Status=ReadyToSample"); len(v) != 1 || v[0].ID != fine {
		t.Errorf("EddyEffect=false: %+v", v)
	}
	mustStatus(t, e.jsonReq("GET", "/Interactions?"+window+"&Status=Sampled", tok, nil), http.StatusNotFound)
	var posted []interactionView
	json.Unmarshal(mustStatus(t, e.jsonReq("POST", "/Interactions", tok, map[string]any{"startDate": today, "endDate": today,
		"hierarchyIds": []string{f.region}, "pageSize": 20}), 200).Body.Bytes(), &posted)
	if len(posted) != 1 || posted[0].ID != stuck {
		t.Errorf("hierarchyIds (a node above the team): %+v", posted)
	}
	// Paging: one a page, in id order.
	if v := list("/Interactions?" + window + "&PageSize=1"); len(v) != 1 || v[0].ID != stuck {
		t.Errorf("first page: %+v", v)
	}
	if v := list("/Interactions?" + window + "&PageSize=1&LastId=" + stuck); len(v) != 1 || v[0].ID != fine {
		t.Errorf("second page: %+v", v)
	}

	// A review is the current result, as in /ModelResults.
	mustStatus(t, e.jsonReq("POST", "/ModelResults/Reviews", tok, map[string]any{"conversationId": stuck, "eventType": "HumanReview",
		"reviewer": "qa@example.com", "modelResults": []map[string]any{{"modelId": eddy, "result": false}}}), 200)
	var one interactionView
	json.Unmarshal(mustStatus(t, e.jsonReq("GET", "/Interactions/"+stuck, tok, nil), 200).Body.Bytes(), &one)
	if one.ID != stuck || one.result("ML-EddyEffect") != "False" || one.Transcriptions == nil {
		t.Errorf("after a review: %+v", one)
	}
	mustStatus(t, e.jsonReq("GET", "/Interactions?"+window+"&EddyEffect=true", tok, nil), http.StatusNotFound)

	// Its evaluations are listed.
	var form formView
	json.Unmarshal(mustStatus(t, e.jsonReq("POST", "/Evaluations/Forms", tok, qaForm), http.StatusCreated).Body.Bytes(), &form)
	evaluation := mustStatus(t, e.jsonReq("POST", "/Evaluations", tok, map[string]any{"formId": form.ID, "conversationId": stuck, "analyst": "ann"}),
		http.StatusCreated).id(t)
	if ids := mustStatus(t, e.jsonReq("GET", "/Interactions/"+stuck, tok, nil), 200).json(t)["evaluationIds"].([]any); len(ids) != 1 || ids[0] != evaluation {
		t.Errorf("evaluationIds %v, want [%s]", ids, evaluation)
	}

	// One still processing: its record, no results or transcript yet.
	r := mustStatus(t, e.jsonReq("GET", "/Interactions/"+pending, tok, nil), 200)
	if v := r.json(t); v["status"] != "Processing" || v["classifierResults"] != nil || v["transcriptions"] != nil {
		t.Errorf("processing: %s", r.Body)
	}

	// Bad parameters name themselves.
	for target, param := range map[string]string{
		"/Interactions?EndDate=" + today:                        "StartDate",
		"/Interactions?" + window + "&PageSize=21":              "PageSize",
		"/Interactions?" + window + "&Status=Processing":        "Status",
		"/Interactions?" + window + "&EddyEffect=maybe":         "EddyEffect",
		"/Interactions?StartDate=2025-10-05&EndDate=2025-10-01": "EndDate",
		"/Interactions?" + window + "&DateReference=Later":      "DateReference",
	} {
		r := mustStatus(t, e.jsonReq("GET", target, tok, nil), 400)
		if errs, _ := r.json(t)["errors"].(map[string]any); errs[param] == nil {
			t.Errorf("%s: errors %s lack %s", target, r.Body, param)
		}
	}
	mustStatus(t, e.jsonReq("PUT", "/Conversations/Classifiers/"+eddy, tok, `{"isActive":false}`), 200)
	r = mustStatus(t, e.jsonReq("GET", "/Interactions?"+window+"&EddyEffect=true", tok, nil), 400)
	if !strings.Contains(r.Body.String(), "Eddy Effect") {
		t.Errorf("EddyEffect without the classifier: %s", r.Body)
	}

	// Another organization sees none of it.
	other, _ := e.cat.Orgs.CreateOrganization(context.Background(), "globex")
	tokB := e.orgToken(t, other.ID)
	mustStatus(t, e.jsonReq("GET", "/Interactions/"+stuck, tokB, nil), http.StatusNotFound)
	mustStatus(t, e.jsonReq("GET", "/Interactions?"+window, tokB, nil), http.StatusNotFound)
}
