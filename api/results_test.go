package api

import (
	"context"
	"encoding/json"
	"github.com/earshot/earshot/internal/timing"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/earshot/earshot/internal/lab/lakegen"
	"github.com/earshot/earshot/warehouse/lake"
)

// resultsEnv is a test server over a generated lake: two organizations of
// 300 conversations each over 6 days from 2025-10-01, 4 classifiers each
// (the last a sentiment model), some reviewed, some still processing.
type resultsEnv struct {
	*testEnv
	orgs  []lakegen.Org
	opts  lakegen.Options
	token string // for orgs[0]
}

func newResultsEnv(t *testing.T) *resultsEnv {
	t.Helper()
	env := newTestEnv(t, Options{})
	o := lakegen.Options{Orgs: 2, Conversations: 600, Days: 6, Classifiers: 4,
		Start: time.Date(2025, 10, 1, 0, 0, 0, 0, time.UTC), Seed: 7, ReviewShare: 0.05, PendingShare: 0.03}
	orgs, err := lakegen.Generate(context.Background(), env.cat, &lake.Writer{Bucket: env.bucket}, o)
	if err != nil {
		t.Fatal(err)
	}
	return &resultsEnv{testEnv: env, orgs: orgs, opts: o, token: env.orgToken(t, orgs[0].ID)}
}

func (e *testEnv) orgToken(t *testing.T, org string) string {
	tok, err := e.tokens.IssueForOperator(org, "acxapi")
	if err != nil {
		t.Fatal(err)
	}
	return tok
}

func (e *resultsEnv) get(target string) response { return e.do("GET", target, nil, bearer(e.token)) }

// models is the modelIds parameter of the first organization's first and
// last classifiers (a boolean one and the sentiment label).
func (e *resultsEnv) models() string {
	cl := e.orgs[0].Classifiers
	return cl[0].ID + "," + cl[len(cl)-1].ID
}

// reference lists the organization's conversation ids the catalog says a
// query must return, by id.
func (e *resultsEnv) reference(t *testing.T, where string, args ...any) []string {
	t.Helper()
	rows, err := e.sql.Query(`SELECT id FROM interactions WHERE org_id = ? AND `+where+` ORDER BY id`, append([]any{e.orgs[0].ID}, args...)...)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	out := []string{}
	for rows.Next() {
		var id string
		rows.Scan(&id)
		out = append(out, id)
	}
	return out
}

type pageItem struct {
	ID             string            `json:"id"`
	ConversationID string            `json:"conversationId"`
	EventType      string            `json:"eventType"`
	ClientCallID   *string           `json:"clientCallId"`
	InteractionAt  string            `json:"interactionDate"` // Insights
	MediaStatus    *mediaStatus      `json:"mediaStatus"`
	ModelResults   *[]map[string]any `json:"modelResults"`
	PriorResults   []map[string]any  `json:"priorResults"`
	Status         string            `json:"status"`
	Results        []struct {
		ClassifierID           string  `json:"classifierId"`
		ClassifierName         string  `json:"classifierName"`
		ClassifierType         string  `json:"classifierType"`
		ClassifierCategoryName string  `json:"classifierCategoryName"`
		Result                 string  `json:"result"`
		Reasoning              *string `json:"reasoning"`
	} `json:"classifierResults"`
}

// walk follows lastId through every page of a query, checking each page.
func (e *resultsEnv) walk(t *testing.T, base, cursor string, pageSize int) []pageItem {
	t.Helper()
	var all []pageItem
	last := ""
	for pages := 0; ; pages++ {
		target := base + "&" + cursor + "=" + last + "&pageSize=" + strconv.Itoa(pageSize)
		r := e.get(target)
		if r.Code == http.StatusNotFound && pages > 0 {
			return all
		}
		if r.Code != http.StatusOK {
			t.Fatalf("%s: %d %s", target, r.Code, r.Body)
		}
		var page []pageItem
		json.Unmarshal(r.Body.Bytes(), &page)
		if len(page) == 0 {
			return all
		}
		all = append(all, page...)
		last = page[len(page)-1].key()
		if len(page) < pageSize || r.Header().Get("X-Has-More") == "false" {
			return all
		}
	}
}

// key is the item's conversation id (both endpoints have conversationId).
func (it pageItem) key() string { return it.ConversationID }

func ids(items []pageItem) []string {
	out := make([]string, len(items))
	for i, it := range items {
		out[i] = it.key()
	}
	return out
}

// ruleCase is a request's query, the status it must get and, when named,
// the golden file of its body.
type ruleCase struct {
	name, query string
	status      int
	golden      string
}

func (e *resultsEnv) checkRules(t *testing.T, path string, cases []ruleCase) {
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := e.get(path + c.query)
			if r.Code != c.status {
				t.Fatalf("status %d, want %d: %s", r.Code, c.status, r.Body)
			}
			if c.golden != "" {
				golden(t, c.golden, r.Body.Bytes())
			}
		})
	}
}

func TestModelResultsRules(t *testing.T) {
	t.Parallel()
	e := newResultsEnv(t)
	models := e.models()
	e.checkRules(t, "/ModelResults?", []ruleCase{
		{"modelIds missing", "", 400, "modelresults_no_models"},
		{"modelIds unknown", "modelIds=01999999-0000-7000-8000-000000000000", 400, "modelresults_unknown_model"},
		{"modelIds malformed", "modelIds=abc", 400, ""},
		{"end before start", "modelIds=" + models + "&startDate=2025-10-03&endDate=2025-10-02", 400, "modelresults_end_before_start"},
		{"page size", "modelIds=" + models + "&pageSize=1001", 400, ""},
		{"unknown code", "modelIds=" + models + "&hierarchyCodes=NOPE", 400, "modelresults_unknown_code"},
		{"first page", "modelIds=" + models + "&pageSize=2", 200, "modelresults_page"},
	})
	if r := e.get("/ModelResults?modelIds=" + models + "&startDate=2026-01-01&endDate=2026-01-02"); r.Code != 200 || r.Body.String() != "[]" {
		t.Errorf("nothing in range: %d %s, want 200 []", r.Code, r.Body)
	}
	// A startDate before 2025-10-01 is 2025-10-01.
	early := e.get("/ModelResults?modelIds=" + models + "&startDate=2024-01-01&pageSize=5")
	floor := e.get("/ModelResults?modelIds=" + models + "&pageSize=5")
	if early.Body.String() != floor.Body.String() || early.Code != 200 {
		t.Errorf("startDate before the floor differs from the floor:\n%s\n%s", early.Body, floor.Body)
	}
	// A window the floor or the default end leaves empty is an empty page,
	// not a 400 about dates the client did not send.
	future := time.Now().UTC().AddDate(0, 0, 2).Format(time.DateOnly)
	for _, q := range []string{"&startDate=2020-01-01&endDate=2025-09-30", "&startDate=" + future} {
		if r := e.get("/ModelResults?modelIds=" + models + q); r.Code != 200 || r.Body.String() != "[]" {
			t.Errorf("%s: %d %s, want 200 []", q, r.Code, r.Body)
		}
	}
	// An empty list is no filter; a repeated model is named once.
	whole := e.get("/ModelResults?modelIds=" + models + "&pageSize=5")
	// A page says its length up front, however long (gin's Data does; net/http
	// alone says it only of a body shorter than its buffer, and sends
	// a longer one in chunks), and where its time went (Server-Timing).
	if long := e.get("/ModelResults?modelIds=" + models + "&pageSize=1000"); long.Body.Len() < 64<<10 ||
		long.Header().Get("Content-Length") != strconv.Itoa(long.Body.Len()) {
		t.Errorf("Content-Length %q of a %d-byte page", long.Header().Get("Content-Length"), long.Body.Len())
	}
	steps := timing.Parse(whole.Header().Get("Server-Timing"))
	for _, step := range []string{"auth", "params", "files", "lake", "verify", "fetch", "ids", "encode", "total"} {
		if _, ok := steps[step]; !ok {
			t.Errorf("Server-Timing %q lacks %s", whole.Header().Get("Server-Timing"), step)
		}
	}
	if r := e.get("/ModelResults?modelIds=" + models + "&pageSize=5&hierarchyCodes="); r.Code != 200 || r.Body.String() != whole.Body.String() {
		t.Errorf("hierarchyCodes= filtered: %d %.200s", r.Code, r.Body)
	}
	if r := e.get("/ModelResults?modelIds=" + models + "," + models + "&pageSize=5"); r.Code != 200 || r.Body.String() != whole.Body.String() {
		t.Errorf("repeated modelIds: %d %.200s", r.Code, r.Body)
	}
}

func TestModelResultsWalkMatchesCatalog(t *testing.T) {
	t.Parallel()
	e := newResultsEnv(t)
	base := "/ModelResults?modelIds=" + e.models()
	got := e.walk(t, base, "lastId", 37)
	want := e.reference(t, "status IN ('ReadyToSample', 'Sampled') AND lake_run_id IS NOT NULL")
	if !slices.Equal(ids(got), want) {
		t.Fatalf("walk returned %d conversations, the catalog has %d processed", len(got), len(want))
	}
	for _, it := range got {
		if it.MediaStatus != nil || it.ModelResults == nil || len(*it.ModelResults) != 2 {
			t.Fatalf("item %s: mediaStatus %v, modelResults %v", it.ID, it.MediaStatus, it.ModelResults)
		}
	}
	// With unprocessed media: the Processing ones too, as NotProcessed with
	// modelResults null; every item has its mediaStatus.
	all := e.walk(t, base+"&includeUnprocessedMedia=true", "lastId", 50)
	pending := e.reference(t, "status = 'Processing'")
	if len(pending) == 0 || len(all) != len(want)+len(pending) {
		t.Fatalf("with unprocessed: %d items, want %d + %d", len(all), len(want), len(pending))
	}
	for _, it := range all {
		switch {
		case it.MediaStatus == nil:
			t.Fatalf("item %s has no mediaStatus", it.ID)
		case slices.Contains(pending, it.ID) != (it.MediaStatus.Status == mediaNotProcessed):
			t.Fatalf("item %s: mediaStatus %s", it.ID, it.MediaStatus.Status)
		case it.MediaStatus.Status == mediaNotProcessed && it.ModelResults != nil:
			t.Fatalf("unprocessed item %s has modelResults", it.ID)
		}
	}
	// A code stands for its node and every node below it.
	region := e.orgs[0].Regions[0]
	tree, _ := e.cat.People.Hierarchy(context.Background(), e.orgs[0].ID)
	inRegion := e.walk(t, base+"&hierarchyCodes=R1", "lastId", 100)
	descendants, _ := json.Marshal(tree.Descendants(region))
	wantRegion := e.reference(t, "status IN ('ReadyToSample', 'Sampled') AND hierarchy_node_id IN (SELECT value FROM json_each(?))", string(descendants))
	if len(wantRegion) == 0 || !slices.Equal(ids(inRegion), wantRegion) {
		t.Fatalf("hierarchyCodes=R1: %d conversations, want %d", len(inRegion), len(wantRegion))
	}
	// The other organization sees none of these.
	other := e.do("GET", "/ModelResults/Conversation?modelIds="+e.orgs[1].Classifiers[0].ID+"&conversationIds="+want[0], nil,
		bearer(e.orgToken(t, e.orgs[1].ID)))
	if other.Code != 200 || other.Body.String() != "[]" {
		t.Errorf("another organization's conversation: %d %s", other.Code, other.Body)
	}
}

func TestModelResultsByConversationAndReviews(t *testing.T) {
	t.Parallel()
	e := newResultsEnv(t)
	processed := e.reference(t, "status = 'ReadyToSample' AND id NOT IN (SELECT conversation_id FROM result_reviews)")
	pending := e.reference(t, "status = 'Processing'")
	r := e.get("/ModelResults/Conversation?modelIds=" + e.models() + "&conversationIds=" + processed[0] + "," + pending[0])
	if r.Code != 200 {
		t.Fatalf("%d %s", r.Code, r.Body)
	}
	golden(t, "modelresults_by_conversation", r.Body.Bytes())
	if r := e.get("/ModelResults/Conversation?modelIds=" + e.models()); r.Code != 400 {
		t.Errorf("no ids: %d", r.Code)
	}
	// A repeated id is one id: 100 distinct ids, some of them twice (in
	// any casing), are within the limit, and each answers once.
	repeated := append(slices.Clone(processed[:100]), processed[0], strings.ToUpper(processed[1]))
	r = e.get("/ModelResults/Conversation?modelIds=" + e.models() + "&conversationIds=" + strings.Join(repeated, ","))
	var once []pageItem
	if json.Unmarshal(r.Body.Bytes(), &once); r.Code != 200 || len(once) != 100 {
		t.Errorf("100 ids, two of them repeated: %d, %d items", r.Code, len(once))
	}

	cl := e.orgs[0].Classifiers
	review := func(body string) response {
		return e.do("POST", "/ModelResults/Reviews", strings.NewReader(body), http.Header{"Authorization": {"Bearer " + e.token}, "Content-Type": {"application/json"}})
	}
	first := review(`{"conversationId":"` + processed[0] + `","eventType":"HumanReview","reviewer":"dana",
		"modelResults":[{"modelId":"` + cl[0].ID + `","result":true}]}`)
	if first.Code != 200 {
		t.Fatalf("review: %d %s", first.Code, first.Body)
	}
	golden(t, "modelresults_review", first.Body.Bytes())
	second := review(`{"conversationId":"` + processed[0] + `","eventType":"QualityControl","reviewer":"lee",
		"modelResults":[{"modelId":"` + cl[0].ID + `","result":false}]}`)
	if second.Code != 200 {
		t.Fatalf("second review: %d %s", second.Code, second.Body)
	}
	// The walk shows the latest set, the machine's and the first review as
	// priorResults, oldest first; the sentiment model keeps its machine
	// value (no review named it).
	r = e.get("/ModelResults/Conversation?modelIds=" + e.models() + "&conversationIds=" + processed[0])
	var items []pageItem
	json.Unmarshal(r.Body.Bytes(), &items)
	it := items[0]
	if it.EventType != "QualityControl" || len(it.PriorResults) != 2 || it.PriorResults[0]["eventType"] != "ModelResults" ||
		it.PriorResults[1]["eventType"] != "HumanReview" || (*it.ModelResults)[0]["result"] != false || len(*it.ModelResults) != 2 {
		t.Fatalf("after two reviews: %s", r.Body)
	}
	for _, c := range []struct {
		body   string
		status int
	}{
		{`{"conversationId":"` + pending[0] + `","eventType":"HumanReview","reviewer":"x","modelResults":[{"modelId":"` + cl[0].ID + `","result":true}]}`, 404},
		{`{"conversationId":"` + processed[0] + `","eventType":"Guess","reviewer":"x","modelResults":[{"modelId":"` + cl[0].ID + `","result":true}]}`, 400},
		{`{"conversationId":"` + processed[0] + `","eventType":"HumanReview","reviewer":"x","modelResults":[{"modelId":"` + e.orgs[1].Classifiers[0].ID + `","result":true}]}`, 400},
		{`{"conversationId":"` + processed[0] + `","eventType":"HumanReview","reviewer":"x","modelResults":[]}`, 400},
	} {
		if r := review(c.body); r.Code != c.status {
			t.Errorf("%s: %d, want %d: %s", c.body, r.Code, c.status, r.Body)
		}
	}
}

func TestInsightsRules(t *testing.T) {
	t.Parallel()
	e := newResultsEnv(t)
	e.checkRules(t, "/Conversations/Insights?", []ruleCase{
		{"exactly 7 days", "StartDate=2025-10-01T00:00:00Z&EndDate=2025-10-08T00:00:00Z&PageSize=1", 200, ""},
		{"7 days and 1 ms", "StartDate=2025-10-01T00:00:00Z&EndDate=2025-10-08T00:00:00.001Z", 400, "insights_window_7"},
		{"exactly 31 days with a filter", "StartDate=2025-09-06T00:00:00Z&EndDate=2025-10-07T00:00:00Z&HierarchyCodes=R1&PageSize=1", 200, ""},
		{"31 days and 1 ms with a filter", "StartDate=2025-09-06T00:00:00Z&EndDate=2025-10-07T00:00:00.001Z&ClassifierTypes=Classifier", 400, "insights_window_31"},
		{"end before start", "StartDate=2025-10-03&EndDate=2025-10-02", 400, ""},
		{"dates required", "EndDate=2025-10-02", 400, "insights_no_start"},
		{"bad type", "StartDate=2025-10-01&EndDate=2025-10-02&ClassifierTypes=Guess", 400, "insights_bad_type"},
		{"bad reference", "StartDate=2025-10-01&EndDate=2025-10-02&DateReference=Tomorrow", 400, ""},
		{"unknown node", "StartDate=2025-10-01&EndDate=2025-10-02&HierarchyIds=01999999-0000-7000-8000-000000000000", 400, ""},
		{"nothing matches", "StartDate=2026-01-01&EndDate=2026-01-02", 404, "insights_none"},
		{"first page", "StartDate=2025-10-01&EndDate=2025-10-02&PageSize=1&ClassifierTypes=Core%20AI%20Model", 200, "insights_page"},
	})
	// An empty list is no filter (CONTRACT §1): the same page as without
	// it, and the window of an unfiltered request.
	base := "/Conversations/Insights?StartDate=2025-10-01&EndDate=2025-10-02&PageSize=5"
	whole := e.get(base)
	empty := e.get(base + "&ClassifierIds=&HierarchyIds=&HierarchyCodes=&ClassifierCategoryNames=&ClassifierTypes=")
	if whole.Code != 200 || empty.Code != 200 || empty.Body.String() != whole.Body.String() {
		t.Errorf("empty filters: %d %.200s", empty.Code, empty.Body)
	}
	if r := e.get("/Conversations/Insights?StartDate=2025-10-01&EndDate=2025-10-20&ClassifierIds="); r.Code != 400 {
		t.Errorf("an empty filter widened the window to 31 days: %d", r.Code)
	}
	post := func(body map[string]any) response { return e.jsonReq("POST", "/Conversations/Insights", e.token, body) }
	r := post(map[string]any{"startDate": "2025-10-01", "endDate": "2025-10-02", "pageSize": 5,
		"classifierIds": []string{}, "hierarchyIds": []string{}, "hierarchyCodes": []string{}})
	if r.Code != 200 || r.Body.String() != whole.Body.String() {
		t.Errorf("POST with empty lists: %d %.200s", r.Code, r.Body)
	}
	// A long hostile list is answered with its first bad value named once,
	// and a long list of one value is that value.
	long := strings.Repeat("nope,", 50_000)
	if r := e.get(base + "&ClassifierIds=" + long + "&HierarchyCodes=" + long + "&ClassifierTypes=" + long); r.Code != 400 || r.Body.Len() > 2000 {
		t.Errorf("a long bad list: %d, %d bytes", r.Code, r.Body.Len())
	}
	if r := e.get(base + "&HierarchyCodes=" + strings.Repeat("R1,", 50_000)); r.Code != 200 {
		t.Errorf("a long list of one code: %d %.200s", r.Code, r.Body)
	}
	// The body's errors are named as the body names its members.
	r = post(map[string]any{"startDate": "2025-10-03", "endDate": "2025-10-02", "classifierTypes": "Guess"})
	if errs, _ := r.json(t)["errors"].(map[string]any); r.Code != 400 || errs["endDate"] == nil || errs["classifierTypes"] == nil || errs["EndDate"] != nil {
		t.Errorf("POST errors: %d %s", r.Code, r.Body)
	}
}

func TestInsightsWalkHeadersAndFilters(t *testing.T) {
	t.Parallel()
	e := newResultsEnv(t)
	from, to := "2025-10-02", "2025-10-05"
	base := "/Conversations/Insights?StartDate=" + from + "&EndDate=" + to
	first := e.get(base + "&PageSize=40")
	total, _ := strconv.Atoi(first.Header().Get("X-Total-Records"))
	want := e.reference(t, "status IN ('ReadyToSample', 'Sampled') AND arrived_on BETWEEN ? AND ?",
		from, to+" 23:59:59.999999")
	if first.Header().Get("X-Has-More") != "true" || total != len(want) {
		t.Fatalf("first page: X-Has-More %q, X-Total-Records %d, want %d", first.Header().Get("X-Has-More"), total, len(want))
	}
	var page []pageItem
	json.Unmarshal(first.Body.Bytes(), &page)
	// Spelled as the contract spells it, not as Go canonicalizes it.
	//lint:ignore SA1008 the contract's spelling is what is sent
	if next := first.Header()["X-Next-LastId"]; len(next) != 1 || next[0] != page[len(page)-1].ConversationID {
		t.Errorf("X-Next-LastId %v, last item %s", next, page[len(page)-1].ConversationID)
	}
	second := e.get(base + "&PageSize=40&LastId=" + page[len(page)-1].ConversationID)
	if _, ok := second.Header()["X-Total-Records"]; ok || second.Code != 200 {
		t.Errorf("second page: %d, X-Total-Records %q (first page only)", second.Code, second.Header().Get("X-Total-Records"))
	}
	got := e.walk(t, base, "LastId", 45)
	if !slices.Equal(ids(got), want) {
		t.Fatalf("walk: %d conversations, want %d", len(got), len(want))
	}
	for _, it := range got {
		if len(it.Results) != 4 {
			t.Fatalf("%s: %d classifier results, want 4", it.ConversationID, len(it.Results))
		}
	}
	// A type filter narrows classifierResults.
	for _, it := range e.walk(t, base+"&ClassifierTypes=core%20ai%20model", "LastId", 100) {
		if len(it.Results) != 1 || it.Results[0].ClassifierType != "Core AI Model" {
			t.Fatalf("%s: %+v", it.ConversationID, it.Results)
		}
	}
	// By interaction date.
	byInteraction := e.walk(t, base+"&DateReference=InteractionDate", "LastId", 100)
	wantInteraction := e.reference(t, "status IN ('ReadyToSample', 'Sampled') AND coalesce(interaction_date, arrived_on) BETWEEN ? AND ?",
		from, to+" 23:59:59.999999")
	if !slices.Equal(ids(byInteraction), wantInteraction) {
		t.Fatalf("InteractionDate walk: %d, want %d", len(byInteraction), len(wantInteraction))
	}
	// POST with the parameters in a body answers the same.
	post := e.do("POST", "/Conversations/Insights", strings.NewReader(`{"startDate":"`+from+`","EndDate":"`+to+`","pageSize":40,
		"classifierTypes":["Classifier","Core AI Model"]}`), http.Header{"Authorization": {"Bearer " + e.token}, "Content-Type": {"application/json"}})
	if post.Code != 200 || post.Body.String() != first.Body.String() {
		t.Errorf("POST differs from GET: %d", post.Code)
	}
}

// TestInsightsWalkWhileCommitting walks every page while new
// conversations of the same days are committed: no conversation comes
// twice, and every one that existed when the walk began comes.
func TestInsightsWalkWhileCommitting(t *testing.T) {
	t.Parallel()
	e := newResultsEnv(t)
	before := e.reference(t, "status IN ('ReadyToSample', 'Sampled') AND arrived_on BETWEEN '2025-10-01' AND '2025-10-06 23:59:59.999999'")
	more := e.opts
	more.Seed, more.Conversations = 99, 1200
	var wg sync.WaitGroup
	wg.Add(1)
	var commitErr error
	go func() {
		defer wg.Done()
		commitErr = lakegen.Commit(context.Background(), e.cat, &lake.Writer{Bucket: e.bucket}, e.orgs, more)
	}()
	got := ids(e.walk(t, "/Conversations/Insights?StartDate=2025-10-01&EndDate=2025-10-06", "LastId", 25))
	wg.Wait()
	if commitErr != nil {
		t.Fatal(commitErr)
	}
	seen := map[string]bool{}
	for _, id := range got {
		if seen[id] {
			t.Fatalf("%s returned twice", id)
		}
		seen[id] = true
	}
	for _, id := range before {
		if !seen[id] {
			t.Fatalf("%s existed when the walk began and was skipped", id)
		}
	}
	after := e.reference(t, "status IN ('ReadyToSample', 'Sampled') AND arrived_on BETWEEN '2025-10-01' AND '2025-10-06 23:59:59.999999'")
	t.Logf("walked %d conversations; %d before, %d after the commits", len(got), len(before), len(after))
	if len(after) <= len(before) {
		t.Fatal("the commits added nothing: the test proves nothing")
	}
}

// A PATCHed timestamp moves a conversation between DateReference=
// InteractionDate windows: it leaves its old day, joins its new one (whose
// lake rows do not have it), and X-Total-Records counts what is served.
func TestInsightsFollowPatchedInteractionDates(t *testing.T) {
	t.Parallel()
	e := newResultsEnv(t)
	day := func(d string) string {
		return "/Conversations/Insights?DateReference=InteractionDate&StartDate=" + d + "&EndDate=" + d
	}
	served := func(d string) ([]string, string) {
		first := e.get(day(d) + "&PageSize=1000")
		if first.Code != 200 && first.Code != 404 {
			t.Fatalf("%s: %d %s", d, first.Code, first.Body)
		}
		return ids(e.walk(t, day(d), "LastId", 7)), first.Header().Get("X-Total-Records")
	}
	oldDay, newDay, emptyDay := "2025-10-02", "2025-10-04", "2026-03-01"
	before, _ := served(oldDay)
	if len(before) < 4 {
		t.Fatalf("%s has %d conversations", oldDay, len(before))
	}
	moving := before[:3]
	targets := []string{newDay + "T10:00:00Z", newDay + "T11:00:00Z", emptyDay + "T09:30:00Z"}
	for i, id := range moving {
		mustStatus(t, e.jsonReq("PATCH", "/Metadata/"+id, e.token, map[string]any{"timestamp": targets[i], "clientCallId": "patched-" + id}), 200)
	}
	// An item says what the catalog now says, not what its lake row does:
	// of a conversation that stays where its row is (the page's check) and
	// of one that moved away from it.
	staying := before[3]
	mustStatus(t, e.jsonReq("PATCH", "/Metadata/"+staying, e.token, map[string]any{"timestamp": oldDay + "T23:00:00Z", "clientCallId": "patched-" + staying}), 200)
	checked := 0
	for _, d := range []string{oldDay, newDay} {
		for _, it := range e.walk(t, day(d), "LastId", 7) {
			i := slices.Index(append(moving[:2:2], staying), it.key())
			if i < 0 {
				continue
			}
			checked++
			at := []string{targets[0], targets[1], oldDay + "T23:00:00Z"}[i]
			callID := "null"
			if it.ClientCallID != nil {
				callID = *it.ClientCallID
			}
			if callID != "patched-"+it.key() || it.InteractionAt != strings.Replace(at, "Z", ".000Z", 1) {
				t.Errorf("%s on %s: clientCallId %s, interactionDate %s", it.key(), d, callID, it.InteractionAt)
			}
		}
	}
	if checked != 3 {
		t.Errorf("%d of the 3 patched conversations served", checked)
	}
	for _, c := range []struct {
		day        string
		has, lacks []string
	}{
		{oldDay, nil, moving},
		{newDay, moving[:2], moving[2:]},
		{emptyDay, moving[2:], moving[:2]},
	} {
		got, total := served(c.day)
		want := e.reference(t, "status IN ('ReadyToSample', 'Sampled') AND coalesce(interaction_date, arrived_on) BETWEEN ? AND ?",
			c.day, c.day+" 23:59:59.999999")
		if !slices.Equal(got, want) {
			t.Errorf("%s: served %d conversations, the catalog puts %d there", c.day, len(got), len(want))
		}
		if total != strconv.Itoa(len(got)) {
			t.Errorf("%s: X-Total-Records %s, %d served", c.day, total, len(got))
		}
		for _, id := range c.has {
			if !slices.Contains(got, id) {
				t.Errorf("%s: %s moved here and is not served", c.day, id)
			}
		}
		for _, id := range c.lacks {
			if slices.Contains(got, id) {
				t.Errorf("%s: %s moved away and is still served", c.day, id)
			}
		}
	}
	// Moved back, it is where it was, and nowhere else.
	mustStatus(t, e.jsonReq("PATCH", "/Metadata/"+moving[2], e.token, map[string]any{"timestamp": oldDay + "T12:00:00Z"}), 200)
	if got, _ := served(oldDay); !slices.Contains(got, moving[2]) {
		t.Errorf("%s moved back to %s and is not served", moving[2], oldDay)
	}
	if r := e.get(day(emptyDay)); r.Code != 404 {
		t.Errorf("%s after the move back: %d %.200s", emptyDay, r.Code, r.Body)
	}
}
