package api

import (
	"encoding/json"
	"fmt"
	"html"
	"net/http"
	"net/url"
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
	greeting := greetingClassifier(t, e, tok)
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

// A supervisor writes an auto-scored form in the console's outline, a
// question bound to a classifier by its name: the form is created with
// the binding (the same use case as the API's), every conversation then
// gets its Auto evaluation, and a changed copy starts from the binding and
// the box as they were. A classifier the organization lacks is a mistake
// naming the line.
func TestConsoleWritesAutoScoredForm(t *testing.T) {
	t.Parallel()
	e := newTestEnv(t, Options{})
	tok := e.token(t)
	f := buildOrg(t, e, tok, "")
	greeting := greetingClassifier(t, e, tok)
	u := e.matrixUser(t, tok, "Supervisor", "Edit", f.site)
	post := func(outline string) response {
		return e.consoleForm("/console/forms", url.Values{"csrf": {u.csrf}, "name": {"Console auto QA"}, "outline": {outline},
			"auto-score": {"yes"}}, u.session)
	}
	if r := post("# Call\nGreeted? | when Welcome: Yes / No | Yes=1, No=0"); r.Code != http.StatusBadRequest ||
		!strings.Contains(html.UnescapeString(r.Body.String()), `line 2 names no classifier of the organization: "Welcome"`) {
		t.Fatalf("an unknown classifier: %d %.400s", r.Code, r.Body.String())
	}
	outline := "# Call\nGreeted the customer? | when greeting: Yes / No | Yes=1, No=0\nResolved? | Yes=1, No=0"
	if r := post(outline); r.Code != http.StatusSeeOther {
		t.Fatalf("the form: %d %.400s", r.Code, r.Body.String())
	}
	var forms []struct {
		ID        string
		AutoScore bool
		Modules   []struct {
			Questions []struct {
				ClassifierID                    string
				AnswerWhenTrue, AnswerWhenFalse string
			}
		}
	}
	json.Unmarshal(mustStatus(t, e.jsonReq("GET", "/Evaluations/Forms", tok, nil), 200).Body.Bytes(), &forms)
	if len(forms) != 1 || !forms[0].AutoScore || len(forms[0].Modules) != 1 || len(forms[0].Modules[0].Questions) != 2 {
		t.Fatalf("the forms: %+v", forms)
	}
	if q := forms[0].Modules[0].Questions; q[0].ClassifierID != greeting || q[0].AnswerWhenTrue != "Yes" || q[0].AnswerWhenFalse != "No" || q[1].ClassifierID != "" {
		t.Errorf("the questions: %+v", q)
	}
	for i, line := range []string{"Hello, how can I help?", "What do you want?"} {
		mustStatus(t, e.upload("/TextMedia/Upload", tok, meta("HierarchyId", f.team), file(fmt.Sprintf("c%d.json", i),
			`{"messages":[{"participant":"Agent","text":"`+line+`"},{"participant":"Customer","text":"My bill is wrong."}]}`)), 200)
	}
	e.runIngest(t)
	var auto []evaluationBody
	json.Unmarshal(mustStatus(t, e.jsonReq("GET", "/Evaluations?Source=Auto", tok, nil), 200).Body.Bytes(), &auto)
	scores := map[float64]int{}
	for _, ev := range auto {
		if ev.Score != nil {
			scores[*ev.Score]++
		}
	}
	if len(auto) != 2 || scores[100] != 1 || scores[0] != 1 {
		t.Errorf("Auto evaluations %d, scores %v: want one greeted (100) and one not (0)", len(auto), scores)
	}
	page := e.do("GET", "/console/forms?from="+forms[0].ID, nil, http.Header{"Cookie": {u.session.String()}})
	changed := html.UnescapeString(page.Body.String())
	if page.Code != http.StatusOK || !strings.Contains(changed, "Greeted the customer? | when Greeting: Yes / No | Yes=1, No=0") ||
		!strings.Contains(changed, `name="auto-score" value="yes" checked`) {
		t.Errorf("the changed copy's editor: %.2000s", changed)
	}
}

// greetingClassifier creates the classifier "Greeting": the agent says
// hello.
func greetingClassifier(t *testing.T, e *testEnv, tok string) string {
	t.Helper()
	return mustStatus(t, e.jsonReq("POST", "/Conversations/Classifiers", tok, classifierBody("Greeting", "Classifier", "Process",
		`{"groups":[{"rules":[{"phrases":["hello"],"speaker":"Agent"}]}]}`)), http.StatusCreated).id(t)
}
