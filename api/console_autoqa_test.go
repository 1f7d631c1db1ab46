package api

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/earshot/earshot/internal/browsertest"
)

// A supervisor sees an agent's QA score from every conversation beside
// the score of people's evaluations, and, on the QA forms page, how often
// people agreed with the classifiers' answer to each bound question.
func TestConsoleSupervisorSeesAutoQA(t *testing.T) {
	t.Parallel()
	e := newTestEnv(t, Options{})
	tok := e.token(t)
	f := buildOrg(t, e, tok, "")
	greeting := mustStatus(t, e.jsonReq("POST", "/Conversations/Classifiers", tok, classifierBody("Greeting", "Classifier", "Process",
		`{"groups":[{"rules":[{"phrases":["hello"],"speaker":"Agent"}]}]}`)), http.StatusCreated).id(t)
	form := mustStatus(t, e.jsonReq("POST", "/Evaluations/Forms", tok, `{"name":"Auto QA","autoScore":true,"modules":[{"name":"Call","questions":[
	  {"questionText":"Greeted the customer?","weight":1,"tags":[{"value":"Yes","scoredValue":1},{"value":"No","scoredValue":0}],
	   "classifierId":"`+greeting+`","answerWhenTrue":"Yes","answerWhenFalse":"No"},
	  {"questionText":"Resolved?","weight":5,"tags":[{"value":"Yes","scoredValue":1},{"value":"No","scoredValue":0}]}]}]}`), http.StatusCreated).id(t)
	// Agent A100: three of four conversations greeted — 75.0 % from every
	// conversation.
	var conversations []string
	for i, line := range []string{"Hello, how can I help?", "Hello there.", "Hello!", "What do you want?"} {
		chat := `{"messages":[{"participant":"Agent","text":"` + line + `"},{"participant":"Customer","text":"My bill is wrong."}]}`
		conversations = append(conversations, mustStatus(t, e.upload("/TextMedia/Upload", tok, meta("HierarchyId", f.team, "AgentCode", "A100"),
			file(fmt.Sprintf("c%d.json", i), chat)), 200).id(t))
	}
	e.runIngest(t)
	var auto []evaluationBody
	json.Unmarshal(mustStatus(t, e.jsonReq("GET", "/Evaluations?Source=Auto", tok, nil), 200).Body.Bytes(), &auto)
	byConversation := map[string]evaluationBody{}
	for _, ev := range auto {
		byConversation[ev.Metadata.ID] = ev
	}
	// A person evaluates the first conversation and says it had no
	// greeting, resolved: 5 of 6, 83.3 %, and a disagreement; a reviewer
	// confirms the classifiers' greeting on the second: an agreement.
	human := mustStatus(t, e.jsonReq("POST", "/Evaluations", tok, map[string]any{"formId": form, "conversationId": conversations[0], "analyst": "ann"}), 201).id(t)
	questions := byConversation[conversations[0]].Questions
	mustStatus(t, e.jsonReq("PUT", "/Evaluations/"+human+"/Answers", tok, map[string]any{"answers": []map[string]any{
		{"questionId": questions[0].ID, "tagIds": []string{"No"}}, {"questionId": questions[1].ID, "tagIds": []string{"Yes"}}}}), 200)
	mustStatus(t, e.jsonReq("POST", "/Evaluations/"+human+"/Submit", tok, nil), 200)
	mustStatus(t, e.jsonReq("PUT", "/Evaluations/"+byConversation[conversations[1]].ID+"/Review", tok, map[string]any{"answers": []map[string]any{
		{"questionId": questions[0].ID, "tagIds": []string{"Yes"}}}}), 200)

	ctx, base := supervisorOnDashboard(t, e, tok, f)
	headings := strings.Join(strings.Fields(browsertest.TextAfter(t, ctx, "#agents-table thead")), " ")
	if !strings.Contains(headings, "QA score (evaluations) QA score (every conversation)") {
		t.Fatalf("the by-agent table's headings: %q", headings)
	}
	row := strings.Join(strings.Fields(browsertest.TextAfter(t, ctx, "#agents-table tbody tr")), " ")
	if !strings.HasPrefix(row, "A100 4 83.3 % 75.0 %") {
		t.Errorf("agent A100: %q, want 4 conversations, 83.3 %% from people, 75.0 %% from every conversation", row)
	}
	browsertest.Shoot(t, ctx, "screenshots", "dashboard-auto-qa")

	agreement := strings.Join(strings.Fields(browsertest.TextAfter(t, ctx, "#agreement-table-"+form,
		chromedp.Navigate(base+"/console/forms"), chromedp.WaitVisible("#agreement-table-"+form))), " ")
	if !strings.Contains(agreement, "Greeted the customer? 2 1 50 %") || strings.Contains(agreement, "Resolved?") {
		t.Errorf("the agreement: %q, want the greeting compared twice, agreed once", agreement)
	}
	browsertest.Shoot(t, ctx, "screenshots", "forms-agreement")
	browsertest.Accessible(t, ctx, "..", "forms-agreement")

	// With Edit on the site, she reviews the third conversation's Auto
	// evaluation from its page: the classifiers said it greeted, she says
	// it did not; the score follows (0 of 1), and the agreement counts it.
	mustStatus(t, e.jsonReq("PUT", "/UserHierarchy/"+f.user+"/"+f.site, tok, map[string]any{"accessLevel": "Edit", "permissions": []string{"Chat"}}), 200)
	third := byConversation[conversations[2]]
	link := `#auto-scored a[href="/console/evaluations/` + third.ID + `"]`
	if err := chromedp.Do(ctx, chromedp.Navigate(base+"/console/conversations/"+conversations[2]), chromedp.WaitVisible(link), chromedp.Click(link),
		chromedp.WaitVisible("#evaluation-form")); err != nil {
		t.Fatal(err)
	}
	if said := browsertest.TextAfter(t, ctx, "p.auto-answer"); !strings.Contains(said, "The classifiers answered Yes") {
		t.Errorf("the classifiers' answer: %q", said)
	}
	browsertest.Shoot(t, ctx, "screenshots", "evaluation-auto")
	browsertest.Accessible(t, ctx, "..", "evaluation-auto")
	no := `//fieldset[legend[contains(., "Greeted the customer?")]]//label[contains(., "No")]/input`
	if err := chromedp.Do(ctx, chromedp.Click(no), chromedp.Click(`#evaluation-form button[type="submit"]`),
		chromedp.WaitVisible(`//p[contains(@class, "auto-answer") and contains(., "reviewed")] | //p[contains(@class, "error")]`)); err != nil {
		t.Fatal(err)
	}
	if score, said := browsertest.TextAfter(t, ctx, "#evaluation-score"), browsertest.TextAfter(t, ctx, "p.auto-answer"); score != "0.0 %" || !strings.Contains(said, "reviewed") {
		t.Errorf("after the review: score %q, %q", score, said)
	}
	agreement = strings.Join(strings.Fields(browsertest.TextAfter(t, ctx, "#agreement-table-"+form,
		chromedp.Navigate(base+"/console/forms"), chromedp.WaitVisible("#agreement-table-"+form))), " ")
	if !strings.Contains(agreement, "Greeted the customer? 3 1 33 %") {
		t.Errorf("the agreement after the review: %q", agreement)
	}
}
