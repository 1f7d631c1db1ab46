package api

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/earshot/earshot/api/oauth"
	"github.com/earshot/earshot/internal/browsertest"
	"github.com/earshot/earshot/internal/lab/synth"
	"github.com/earshot/earshot/jobs"
	"github.com/earshot/earshot/pipeline"
	"github.com/earshot/earshot/pipeline/analysis/core"
	"github.com/earshot/earshot/pipeline/asr/sphinx"
	"github.com/earshot/earshot/warehouse/catalog"
	"github.com/earshot/earshot/warehouse/lake"
)

// The console in a real browser: a wrong password is refused, a user
// limited to one branch signs in and sees only that branch's
// conversations — in the list and by direct URL — and reads a transcript;
// a change without the CSRF token is refused; another organization's
// conversation is not there; signing out ends the session.
func TestConsoleInABrowser(t *testing.T) {
	t.Parallel()
	e := newTestEnv(t, Options{})
	tok := e.token(t)
	f := buildOrg(t, e, tok, "")
	london := mustStatus(t, e.jsonReq("POST", "/Hierarchy", tok, map[string]any{"name": "London", "parentId": f.region, "code": "LON"}), 200).id(t)
	billingIssue := mustStatus(t, e.jsonReq("POST", "/Conversations/Classifiers", tok, classifierBody("Billing issue", "Classifier", "Topics",
		`{"groups":[{"rules":[{"phrases":["bill is wrong"],"speaker":"Customer"}]}]}`)), http.StatusCreated).id(t)
	mustStatus(t, e.jsonReq("POST", "/Conversations/Classifiers", tok, classifierBody("Upset customer", "Core AI Model", "SE Suite",
		`{"model":"sentiment","speaker":"Customer","label":"Negative"}`)), http.StatusCreated)
	chat := func(text string) string {
		return `{"messages":[{"participant":"Agent","text":"Thanks for calling Acme.","timestamp":"2025-10-03T10:00:00Z"},` +
			`{"participant":"Customer","text":"` + text + `","timestamp":"2025-10-03T10:00:04Z"}]}`
	}
	billing := mustStatus(t, e.upload("/TextMedia/Upload", tok, meta("HierarchyId", f.team, "AgentCode", "A100"), file("billing.json", chat("My bill is wrong."))), 200).id(t)
	inLondon := mustStatus(t, e.upload("/TextMedia/Upload", tok, meta("HierarchyId", london), file("london.json", chat("Where is my parcel?"))), 200).id(t)
	e.runIngest(t)
	mustStatus(t, e.jsonReq("PUT", "/UserHierarchy/"+f.user+"/"+f.site, tok, map[string]any{"accessLevel": "Edit", "permissions": []string{"Chat"}}), 200)
	hash, _ := oauth.HashSecret("correct horse battery")
	if err := e.cat.People.SetPassword(context.Background(), e.org.ID, f.user, hash); err != nil {
		t.Fatal(err)
	}
	other, _ := e.cat.Orgs.CreateOrganization(context.Background(), "globex")
	elsewhere := mustStatus(t, e.upload("/TextMedia/Upload", e.orgToken(t, other.ID), meta("LocaleId", 1033), file("g.json", chat("Hello"))), 200).id(t)

	server := httptest.NewServer(e.srv)
	defer server.Close()
	base := strings.Replace(server.URL, "127.0.0.1", "localhost", 1) // a secure context: Secure cookies over http
	ctx := browsertest.Browser(t)
	do := func(sel string, steps ...chromedp.Action[chromedp.Void]) string {
		t.Helper()
		return browsertest.TextAfter(t, ctx, sel, steps...)
	}
	var text string
	// signIn submits the form, then waits for what only the next page has.
	signIn := func(password, next string) {
		t.Helper()
		text = do("main", chromedp.Navigate(base+"/console"), chromedp.WaitVisible("#password"),
			chromedp.SetValue("#organization", "acme"), chromedp.SetValue("#username", "ann"), chromedp.SetValue("#password", password),
			chromedp.Submit("#password"), chromedp.WaitVisible(next))
	}
	signIn("wrong password", "p.error")
	if !strings.Contains(text, "is not right") {
		t.Fatalf("a wrong password: %q", text)
	}
	browsertest.Shoot(t, ctx, "screenshots", "sign-in")
	browsertest.Accessible(t, ctx, "..", "sign-in")
	browsertest.Keyboard(t, ctx, "sign-in")
	signIn("correct horse battery", "main table")
	if !strings.Contains(text, billing) || strings.Contains(text, inLondon) || !strings.Contains(text, "1 conversation") {
		t.Fatalf("ann's conversations: %q", text)
	}
	browsertest.Shoot(t, ctx, "screenshots", "conversations")
	browsertest.Accessible(t, ctx, "..", "conversations")
	browsertest.Keyboard(t, ctx, "conversations")

	// The list's filters: by agent, by hierarchy code (London's are not
	// ann's to see, filter or not).
	// By a classifier's result and the transcript's words (London's
	// parcel is not hers to find either).
	for query, want := range map[string]string{"agent=a100": "1 conversation", "agent=Z9": "No conversation", "team=BOS": "1 conversation", "team=LON": "No conversation",
		"result=" + billingIssue + ":true": "1 conversation", "result=" + billingIssue + ":false": "No conversation",
		"text=BILL+IS": "1 conversation", "text=parcel": "No conversation", "text=bill&agent=Z9": "No conversation"} {
		if got := do("main", chromedp.Navigate(base+"/console/conversations?"+query), chromedp.WaitVisible("main h1")); !strings.Contains(got, want) {
			t.Errorf("conversations?%s: %q, want %q", query, got, want)
		}
	}

	// A word search shows the turn that has the words, marked, and the
	// conversation's page marks them too.
	if got := do("#conversations .excerpt mark", chromedp.Navigate(base+"/console/conversations?text=BILL+IS"), chromedp.WaitVisible("#conversations")); got != "bill is" {
		t.Errorf("the word search's excerpt marks %q", got)
	}
	if got := do(".transcript", chromedp.Click("#conversations tbody a"), chromedp.WaitVisible(".transcript")); !strings.Contains(got, "My bill is wrong.") {
		t.Errorf("the conversation found by words: %q", got)
	}

	// The dashboard draws its charts from the lake's figures of what ann
	// may see: today's one conversation, the billing issue found in it.
	caption := do("#conversations-table caption", chromedp.Navigate(base+"/console/dashboard"), chromedp.WaitVisible("#hits-table"))
	if caption != "1 conversation(s) in the range" {
		t.Errorf("dashboard: %q", caption)
	}
	if hits := strings.Join(strings.Fields(do("#hits-table tbody tr")), " "); hits != "Billing issue 1 1 100.0 %" {
		t.Errorf("hit rates: %q", hits)
	}
	drawn, err := chromedp.Run(ctx, chromedp.Evaluate[[]float64](`[
		Chart.getChart(document.getElementById("conversations-chart")).data.datasets[0].data.reduce((a, b) => a + b, 0),
		Chart.getChart(document.getElementById("hits-chart")).data.datasets.length,
		Number(Chart.getChart(document.getElementById("hits-chart")).data.datasets[0].data.filter(v => v !== null)[0])]`))
	if err != nil || len(drawn) != 3 || drawn[0] != 1 || drawn[1] != 1 || drawn[2] != 100 {
		t.Errorf("the charts drew %v (%v)", drawn, err)
	}
	// By team and agent: the customer's one turn, negative.
	mood := fmt.Sprintf("%.2f", core.Compound("My bill is wrong."))
	for sel, want := range map[string]string{"#teams-table tbody": "Billing 1 — 100.0 % " + mood + " 100.0 %", "#agents-table tbody": "A100 1 — 100.0 % " + mood + " 100.0 %"} {
		if got := strings.Join(strings.Fields(do(sel)), " "); got != want {
			t.Errorf("%s: %q, want %q", sel, got, want)
		}
	}
	bars, err := chromedp.Run(ctx, chromedp.Evaluate[[]float64](`Chart.getChart(document.getElementById("team-chart-0")).data.datasets[0].data`))
	if err != nil || len(bars) != 1 || fmt.Sprintf("%.2f", bars[0]) != mood {
		t.Errorf("the by-team chart drew %v (%v), want [%s]", bars, err, mood)
	}
	browsertest.Shoot(t, ctx, "screenshots", "dashboard")
	browsertest.Accessible(t, ctx, "..", "dashboard")

	text = do("main", chromedp.Navigate(base+"/console/conversations"), chromedp.WaitVisible("table"),
		chromedp.Click(`a[href="/console/conversations/`+billing+`"]`), chromedp.WaitVisible(".transcript"))
	if !strings.Contains(text, "00:00:04") || !strings.Contains(text, "My bill is wrong.") || !strings.Contains(text, "bo Ng") {
		t.Fatalf("the conversation: %q", text)
	}
	// The classifier's evidence is marked in the transcript.
	if marked := do(".transcript mark"); marked != "bill is wrong" {
		t.Errorf("the evidence marked: %q", marked)
	}
	browsertest.Shoot(t, ctx, "screenshots", "conversation")
	browsertest.Accessible(t, ctx, "..", "conversation")

	// The reviewer corrects the result: a HumanReview, as the API shows.
	if result := do("#results td.result", chromedp.Click(`input[name="result-`+billingIssue+`"][value="no"]`),
		chromedp.Click(`#results button[type="submit"]`), chromedp.WaitVisible("#results .reviewed")); !strings.HasPrefix(result, "No") {
		t.Errorf("after the review: %q", result)
	}
	var items []struct {
		ConversationID, EventType string
		ModelResults              []struct{ Result *bool }
	}
	json.Unmarshal(mustStatus(t, e.jsonReq("GET", "/ModelResults/Conversation?conversationIds="+billing+"&modelIds="+billingIssue, tok, nil), 200).Body.Bytes(), &items)
	if len(items) != 1 || items[0].EventType != "HumanReview" || items[0].ModelResults[0].Result == nil || *items[0].ModelResults[0].Result {
		t.Errorf("/ModelResults after the console's review: %+v", items)
	}

	for _, id := range []string{inLondon, elsewhere} {
		if text = do("main h1", chromedp.Navigate(base+"/console/conversations/"+id), chromedp.WaitVisible("main h1")); text != "Not found" {
			t.Errorf("conversation %s by URL: %q", id, text)
		}
	}

	// The reviewer's queue holds the evaluation assigned to them; they
	// answer it and submit it, and the API scores it as its own answers
	// would be (TestEvaluationLifecycle's answers: 35 %).
	var form formView
	json.Unmarshal(mustStatus(t, e.jsonReq("POST", "/Evaluations/Forms", tok, qaForm), http.StatusCreated).Body.Bytes(), &form)
	evaluation := mustStatus(t, e.jsonReq("POST", "/Evaluations", tok, map[string]any{"formId": form.ID, "conversationId": billing, "analyst": "ann"}),
		http.StatusCreated).id(t)
	tag := func(q, value int, module int) string {
		return `input[name="q-` + form.Modules[module].Questions[q].ID + `"][value="` + form.Modules[module].Questions[q].Tags[value].ID + `"]`
	}
	// The queue names the form, the agent and the conversation.
	if row := strings.Join(strings.Fields(do("#evaluations tbody tr", chromedp.Navigate(base+"/console/queue"), chromedp.WaitVisible("#evaluations"))), " "); !strings.HasPrefix(row, "Evaluation 1 Call quality bo Ng "+billing+".json") {
		t.Errorf("the queue's evaluation: %q", row)
	}
	text = do("#evaluation-status", chromedp.Click(`a[href="/console/evaluations/`+evaluation+`"]`), chromedp.WaitVisible("#evaluation-status"))
	if text != "Not started" {
		t.Fatalf("the evaluation opens %q", text)
	}
	browsertest.Accessible(t, ctx, "..", "evaluation")
	browsertest.Shoot(t, ctx, "screenshots", "evaluation")
	submitted := do("#evaluation-status", chromedp.Click(tag(0, 0, 0)), chromedp.Click(tag(1, 1, 0)), chromedp.Click(tag(0, 1, 1)),
		chromedp.SetValue(`textarea[name="q-`+form.Modules[1].Questions[1].ID+`"]`, "Escalate to billing."),
		chromedp.SetValue("#summary", "Billing dispute."), chromedp.Click(`button[value="submit"]`), chromedp.WaitNotPresent(`button[value="submit"]`))
	if score := do("#evaluation-score"); submitted != "Completed" || score != "35.0 %" {
		t.Errorf("after submitting: %s, %s", submitted, score)
	}
	if v := mustStatus(t, e.jsonReq("GET", "/Evaluations/"+evaluation, tok, nil), 200).json(t); v["status"] != "Completed" || v["score"] != 35.0 ||
		v["callSummary"] != "Billing dispute." {
		t.Errorf("the API's evaluation: %v", v)
	}
	// The dashboard has the agent's and the team's QA score now.
	for sel, want := range map[string]string{"#teams-table tbody": "Billing 1 35.0 % 100.0 %", "#agents-table tbody": "A100 1 35.0 % 100.0 %"} {
		if got := strings.Join(strings.Fields(do(sel, chromedp.Navigate(base+"/console/dashboard"), chromedp.WaitVisible(sel))), " "); !strings.HasPrefix(got, want) {
			t.Errorf("%s after the evaluation: %q, want %q…", sel, got, want)
		}
	}

	// A review workflow over the evaluation waits for ann; she completes
	// its one level, answering its boss module: the workflow closes and
	// the evaluation's review is complete, as the API shows.
	// The supervisor writes the review workflow's template in the console
	// (a level for a user who does not exist first: refused, naming them).
	templateNotice := func(levels, wait string) string {
		t.Helper()
		return do(wait, chromedp.Navigate(base+"/console/forms"), chromedp.WaitVisible("#new-template"),
			chromedp.SetValue("#template-name", "Reconsideration"), chromedp.SetValue("#levels", levels),
			chromedp.SetValue("#questions", "Action plan established | No, Yes"), chromedp.Click(`#new-template button[type="submit"]`), chromedp.WaitVisible(wait))
	}
	if refused := templateNotice("nobody.here", "#new-template ~ p.error, #templates-heading ~ p.error"); !strings.Contains(refused, `"nobody.here" is not an active user`) {
		t.Errorf("a template for a user who does not exist: %q", refused)
	}
	if created := templateNotice("ann", "p.notice"); !strings.Contains(created, "Reconsideration") {
		t.Errorf("the template written in the console: %q", created)
	}
	var templates []map[string]any
	json.Unmarshal(mustStatus(t, e.jsonReq("GET", "/Workflows/Templates", tok, nil), 200).Body.Bytes(), &templates)
	if len(templates) != 1 {
		t.Fatalf("the API's templates: %v", templates)
	}
	template := templates[0]["id"].(string)
	// The supervisor sends the evaluation for review from its page.
	if err := chromedp.Do(ctx, chromedp.Navigate(base+"/console/evaluations/"+evaluation), chromedp.WaitVisible("#send-for-review"),
		chromedp.SetValue("#review-template", template), chromedp.Click(`#send-for-review button`), chromedp.WaitVisible("#workflow-status")); err != nil {
		t.Fatal(err)
	}
	at, err := chromedp.Run(ctx, chromedp.Evaluate[string](`location.pathname`))
	if err != nil || !strings.HasPrefix(at, "/console/workflows/") {
		t.Fatalf("after sending for review: %q (%v)", at, err)
	}
	workflow := strings.TrimPrefix(at, "/console/workflows/")
	if v := mustStatus(t, e.jsonReq("GET", "/Evaluations/"+evaluation, tok, nil), 200).json(t); v["status"] != "PendingReview" {
		t.Errorf("the evaluation sent for review: %v", v["status"])
	}
	closed := do("#workflow-status", chromedp.Navigate(base+"/console/queue"), chromedp.WaitVisible("ul.queue"),
		chromedp.Click(`a[href="/console/workflows/`+workflow+`"]`), chromedp.WaitVisible(`input[name="boss-0"][value="Yes"]`),
		chromedp.Click(`input[name="boss-0"][value="Yes"]`), chromedp.SetValue("#notes", "Fair evaluation."),
		chromedp.Click(`button[value="complete"]`), chromedp.WaitNotPresent(`button[value="complete"]`))
	if closed != "Closed" {
		t.Errorf("the workflow after ann's level: %q", closed)
	}
	browsertest.Accessible(t, ctx, "..", "workflow")
	browsertest.Shoot(t, ctx, "screenshots", "workflow")
	if v := mustStatus(t, e.jsonReq("GET", "/Evaluations/"+evaluation, tok, nil), 200).json(t); v["status"] != "ReviewComplete" {
		t.Errorf("the evaluation after the workflow: %v", v["status"])
	}

	// A change without the CSRF token (a form another site could post).
	status, err := chromedp.Run(ctx, chromedp.Evaluate[int](`fetch("/console/sign-out", {method: "POST"}).then(r => r.status)`, chromedp.EvalAwaitPromise))
	if err != nil {
		t.Fatal(err)
	}
	if status != 403 {
		t.Errorf("sign-out without the CSRF token: %d", status)
	}
	if err := chromedp.Do(ctx, chromedp.Navigate(base+"/console/conversations"), chromedp.WaitVisible(".sign-out button"),
		chromedp.Click(".sign-out button"), chromedp.WaitVisible("#password")); err != nil {
		t.Fatalf("signing out: %v", err)
	}
	if err := chromedp.Do(ctx, chromedp.Navigate(base+"/console/conversations/"+billing), chromedp.WaitVisible("#password")); err != nil {
		t.Fatalf("after signing out, a conversation's URL: %v", err)
	}
}

// runIngestCalls runs the real ingest job with the calls processor
// (PocketSphinx) over the environment's pending uploads.
func (e *testEnv) runIngestCalls(t testing.TB) {
	t.Helper()
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	runner := jobs.NewRunner(e.cat.Jobs, "api-test", log, nil)
	runner.Register("ingest", &jobs.Ingest{
		Uploads: e.cat.Interactions, Lake: &lake.Writer{Bucket: e.bucket}, Open: e.bucket.Get,
		Processors: []pipeline.Processor{pipeline.Calls{Recognizers: &pipeline.Recognizers{Engine: sphinx.Engine{}}, Settings: e.cat.Settings}},
		Queues:     []jobs.Queue{{MediaTypes: []string{catalog.MediaAudio}, BatchSize: 2}},
		Owner:      "api-test", Workers: 1, Lease: time.Minute, Log: log,
		Analyzer: &pipeline.Analyzer{Classifiers: e.cat.Classifiers, Hierarchy: e.cat.People, Privacy: e.cat.Settings, Log: log},
	})
	if run, err := runner.Run(context.Background(), "ingest"); err != nil || run.Counts["conversations"] != 1 {
		t.Fatalf("ingest of the call: %+v %v", run, err)
	}
}

// A call's page plays its recording, served with range requests, from the
// time of the transcript line clicked.
func TestConsolePlaysACallFromATranscriptLine(t *testing.T) {
	t.Parallel()
	ctx0 := context.Background()
	e := newTestEnv(t, Options{})
	tok := e.token(t)
	if err := e.cat.Settings.SetAudioSettings(ctx0, catalog.AudioSettings{OrgID: e.org.ID, AgentChannel: 1}); err != nil {
		t.Fatal(err)
	}
	call, err := synth.Stereo(ctx0, []synth.Turn{
		{Speaker: "Agent", Text: "Thank you for calling, how can I help you today?"},
		{Speaker: "Customer", Text: "I want to book a table for two people in San Jose."},
		{Speaker: "Agent", Text: "What time would you like the reservation?"},
	}, 1)
	if err != nil {
		t.Fatal(err)
	}
	id := mustStatus(t, e.upload("/Media/Upload", tok, meta("FileName", "calls/table.wav", "UploadType", "Audio"), file("table.wav", string(call.WAV))), 200).id(t)
	e.runIngestCalls(t)
	admin := mustStatus(t, e.jsonReq("POST", "/User", tok, map[string]any{"firstName": "Ada", "lastName": "Root", "userName": "ada",
		"email": "ada@example.com", "roleName": "Administrator"}), 200).id(t)
	hash, _ := oauth.HashSecret("correct horse battery")
	if err := e.cat.People.SetPassword(ctx0, e.org.ID, admin, hash); err != nil {
		t.Fatal(err)
	}

	server := httptest.NewServer(e.srv)
	defer server.Close()
	base := strings.Replace(server.URL, "127.0.0.1", "localhost", 1)
	ctx := browsertest.Browser(t)
	if err := chromedp.Do(ctx, chromedp.Navigate(base+"/console/sign-in"), chromedp.WaitVisible("#password"),
		chromedp.SetValue("#organization", "acme"), chromedp.SetValue("#username", "ada"), chromedp.SetValue("#password", "correct horse battery"),
		chromedp.Submit("#password"), chromedp.WaitVisible("main table"),
		chromedp.Navigate(base+"/console/conversations/"+id), chromedp.WaitVisible("button.seek")); err != nil {
		t.Fatal(err)
	}
	starts, err := chromedp.Run(ctx, chromedp.Evaluate[[]float64](`[...document.querySelectorAll("button.seek")].map(b => Number(b.dataset.ms))`))
	if err != nil || len(starts) < 2 || starts[len(starts)-1] <= 0 {
		t.Fatalf("transcript lines starting at %v (%v)", starts, err)
	}
	last := starts[len(starts)-1]
	if err := chromedp.Do(ctx, chromedp.Click(`button.seek[data-ms="`+strconv.FormatFloat(last, 'f', -1, 64)+`"]`)); err != nil {
		t.Fatal(err)
	}
	playing := func() {
		t.Helper()
		browsertest.Until(t, ctx, fmt.Sprintf(`document.getElementById("player").currentTime > %v && !document.getElementById("player").paused`, last/1000), 15*time.Second)
	}
	playing()
	browsertest.Shoot(t, ctx, "screenshots", "call")
	browsertest.Accessible(t, ctx, "..", "call")

	// The recording is served by ranges.
	status, err := chromedp.Run(ctx, chromedp.Evaluate[string](`fetch("/console/conversations/`+id+`/audio", {headers: {Range: "bytes=0-99"}})
		.then(r => r.status + " " + r.headers.get("Content-Range") + " " + r.headers.get("Content-Type"))`, chromedp.EvalAwaitPromise))
	if err != nil || status != "206 bytes 0-99/"+strconv.Itoa(len(call.WAV))+" audio/wav" {
		t.Errorf("a range of the recording: %q (%v)", status, err)
	}

	// A reviewer evaluates beside the call: the evaluation's page has the
	// recording, the transcript (a line plays from its time) and the
	// results beside the form.
	// The administrator writes the QA form in the console (qaForm, as an
	// outline; a mistake first, refused naming its line), then assigns
	// the call's evaluation from its page, to herself.
	outline := "# Opening\nGreeted the customer? | required | weight 2 | Yes=1, No=0, N/A\n" +
		"Showed empathy? | weight 3 | category Soft skills | Always=2, Sometimes=1, Never=0\n" +
		"# Wrap-up\nResolved the issue? | required | weight 5 | Yes=1, No=0\nNotes | fill-in"
	refusedForm := browsertest.TextAfter(t, ctx, "#new-form-heading ~ p.error", chromedp.Navigate(base+"/console/forms"), chromedp.WaitVisible("#outline"),
		chromedp.SetValue("#form-name", "Call quality"), chromedp.SetValue("#outline", "# Opening\nGreeted? | weight two | Yes=1"),
		chromedp.Click(`#new-form button[type="submit"]`), chromedp.WaitVisible("#new-form-heading ~ p.error"))
	if !strings.Contains(refusedForm, "line 2 has a weight that is no number") {
		t.Errorf("a form with a mistake: %q", refusedForm)
	}
	created := browsertest.TextAfter(t, ctx, "p.notice", chromedp.SetValue("#outline", outline), chromedp.Click(`#new-form button[type="submit"]`),
		chromedp.WaitVisible("p.notice"))
	browsertest.Shoot(t, ctx, "screenshots", "forms")
	browsertest.Accessible(t, ctx, "..", "forms")
	var forms []formView
	json.Unmarshal(mustStatus(t, e.jsonReq("GET", "/Evaluations/Forms", tok, nil), 200).Body.Bytes(), &forms)
	if !strings.Contains(created, "Call quality") || len(forms) != 1 || len(forms[0].Modules) != 2 || len(forms[0].Modules[1].Questions) != 2 {
		t.Fatalf("the form written in the console: %q; the API has %+v", created, forms)
	}
	form := forms[0]
	// Changed: a new form that starts from this one's outline; the old one
	// stops being offered, then is offered again.
	if err := chromedp.Do(ctx, chromedp.Click(`#forms a[href^="/console/forms?from="]`), chromedp.WaitVisible(`#new-form-heading ~ p.notice, main > p.notice`)); err != nil {
		t.Fatal(err)
	}
	copied, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](`[document.getElementById("form-name").value, document.getElementById("outline").value]`))
	if err != nil || copied[0] != "Call quality (changed)" || copied[1] != outline {
		t.Errorf("editing the form as a new one starts from %q (%v)", copied, err)
	}
	for _, want := range []string{"No", "Yes"} {
		if err := chromedp.Do(ctx, chromedp.Click(`#forms form.inline button`)); err != nil {
			t.Fatal(err)
		}
		browsertest.Until(t, ctx, `document.querySelector('#forms td[data-label="Offered"]') && document.querySelector('#forms td[data-label="Offered"]').textContent === "`+want+`"`, 10*time.Second)
	}
	assigned := browsertest.TextAfter(t, ctx, "#assign .notice", chromedp.Navigate(base+"/console/conversations/"+id), chromedp.WaitVisible("#assign-form"),
		chromedp.SetValue("#assign-form", form.ID), chromedp.SetValue("#assign-analyst", "ada"), chromedp.Click(`#assign button[type="submit"]`),
		chromedp.WaitVisible("#assign .notice"))
	var listed []map[string]any
	json.Unmarshal(mustStatus(t, e.jsonReq("GET", "/Evaluations", tok, nil), 200).Body.Bytes(), &listed)
	if !strings.HasPrefix(assigned, "Evaluation 1 assigned") || len(listed) != 1 {
		t.Fatalf("assigned from the console: %q; the API lists %v", assigned, listed)
	}
	evaluation := listed[0]["id"].(string)
	tag := func(module, q, value int) string {
		return `input[name="q-` + form.Modules[module].Questions[q].ID + `"][value="` + form.Modules[module].Questions[q].Tags[value].ID + `"]`
	}
	apiEvaluation := func() map[string]any {
		return mustStatus(t, e.jsonReq("GET", "/Evaluations/"+evaluation, tok, nil), 200).json(t)
	}
	if err := chromedp.Do(ctx, chromedp.Navigate(base+"/console/queue"), chromedp.WaitVisible("#evaluations"),
		chromedp.Click(`a[href="/console/evaluations/`+evaluation+`"]`), chromedp.WaitVisible(".beside-call button.seek"),
		chromedp.Click(`.beside-call button.seek[data-ms="`+strconv.FormatFloat(last, 'f', -1, 64)+`"]`)); err != nil {
		t.Fatal(err)
	}
	playing()
	// A submit with the required questions open is refused, naming them,
	// and changes nothing.
	refusal := browsertest.TextAfter(t, ctx, ".beside-form p.error", chromedp.Click(`button[value="submit"]`), chromedp.WaitVisible(".beside-form p.error"))
	if !strings.Contains(refusal, "Greeted the customer?") || apiEvaluation()["status"] != "NotStarted" {
		t.Errorf("a refused submit: %q, the evaluation %v", refusal, apiEvaluation()["status"])
	}
	// Answers are saved as drafts as they are given.
	if err := chromedp.Do(ctx, chromedp.Click(tag(0, 0, 0))); err != nil {
		t.Fatal(err)
	}
	browsertest.Until(t, ctx, `document.getElementById("draft-status").textContent.startsWith("Draft saved")`, 10*time.Second)
	if v := apiEvaluation(); v["status"] != "InProgress" {
		t.Errorf("after a draft: %v", v["status"])
	}
	browsertest.Shoot(t, ctx, "screenshots", "review")
	browsertest.Accessible(t, ctx, "..", "review")

	// The session ends mid-form. The reviewer goes on and submits: the
	// sign-in page says why; signed in again, the form is back with
	// everything given, and the submit goes through.
	if _, err := e.sql.Exec(`UPDATE sessions SET expires_on = created_on`); err != nil {
		t.Fatal(err)
	}
	notes := `textarea[name="q-` + form.Modules[1].Questions[1].ID + `"]`
	notice := browsertest.TextAfter(t, ctx, "p.notice", chromedp.Click(tag(1, 0, 1)), chromedp.SetValue(notes, "Escalate to billing."),
		chromedp.SetValue("#summary", "Wants a table for two."), chromedp.Click(`button[value="submit"]`), chromedp.WaitVisible("p.notice"))
	if !strings.Contains(notice, "session has ended") || apiEvaluation()["callSummary"] != "" {
		t.Errorf("the submit after the session ended: %q; the evaluation %v", notice, apiEvaluation())
	}
	if err := chromedp.Do(ctx, chromedp.SetValue("#organization", "acme"), chromedp.SetValue("#username", "ada"),
		chromedp.SetValue("#password", "correct horse battery"), chromedp.Submit("#password"), chromedp.WaitVisible("#evaluation-form")); err != nil {
		t.Fatal(err)
	}
	browsertest.Until(t, ctx, `document.getElementById("draft-status").textContent.startsWith("Restored")`, 10*time.Second)
	kept, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](`[String(document.querySelector('`+tag(0, 0, 0)+`').checked),
		String(document.querySelector('`+tag(1, 0, 1)+`').checked), document.querySelector('`+notes+`').value, document.getElementById("summary").value]`))
	if err != nil || strings.Join(kept, "|") != "true|true|Escalate to billing.|Wants a table for two." {
		t.Fatalf("the form after signing in again: %q (%v)", kept, err)
	}
	if err := chromedp.Do(ctx, chromedp.Click(`button[value="submit"]`), chromedp.WaitNotPresent(`button[value="submit"]`)); err != nil {
		t.Fatal(err)
	}
	var done evaluationBody
	json.Unmarshal(mustStatus(t, e.jsonReq("GET", "/Evaluations/"+evaluation, tok, nil), 200).Body.Bytes(), &done)
	answered := map[string]string{}
	for _, q := range done.Questions {
		for _, a := range q.Answers {
			answered[q.QuestionText] = deref(a.FillInAnswerValue)
			for _, tag := range a.AnswerTags {
				answered[q.QuestionText] += tag.Tag.Value
			}
		}
	}
	if done.Status != "Completed" || deref(done.CallSummary) != "Wants a table for two." || answered["Greeted the customer?"] != "Yes" ||
		answered["Resolved the issue?"] != "No" || answered["Notes"] != "Escalate to billing." {
		t.Errorf("the evaluation submitted after signing in again: %s %v %v", done.Status, deref(done.CallSummary), answered)
	}
}
