package api

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/earshot/earshot/api/oauth"
	"github.com/earshot/earshot/warehouse/lakedb"
)

const cancelDefinition = `{"groups":[{"rules":[{"phrases":["cancel my account"],"speaker":"Customer","window":{"firstPercent":50}}]}]}`

func classifierBody(name, typ, category, definition string) string {
	return `{"name":"` + name + `","classifierType":"` + typ + `","categoryName":"` + category + `","description":"d","definition":` + definition + `}`
}

func TestClassifiersLifecycle(t *testing.T) {
	t.Parallel()
	e := newTestEnv(t, Options{})
	tok := e.token(t)

	r := mustStatus(t, e.jsonReq("POST", "/Conversations/Classifiers", tok, classifierBody("Cancellation", "classifier", "topics", cancelDefinition)), http.StatusCreated)
	golden(t, "classifier_created", r.Body.Bytes())
	id := r.id(t)
	pii := mustStatus(t, e.jsonReq("POST", "/Conversations/Classifiers", tok, classifierBody("PII spoken", "Core AI Model", "Process", `{"model":"pii"}`)), http.StatusCreated).id(t)

	// A change makes version 2; the definition is checked again.
	r = mustStatus(t, e.jsonReq("PUT", "/Conversations/Classifiers/"+id, tok, `{"definition":{"groups":[{"rules":[{"phrases":["cancel"]}]}]},"reportable":false}`), http.StatusOK)
	if v := r.json(t); v["version"] != float64(2) || v["reportable"] != false || v["name"] != "Cancellation" {
		t.Fatalf("%v", v)
	}
	r = mustStatus(t, e.jsonReq("GET", "/conversations/classifiers?classifierTypes=classifier,LLM%20Model&categoryNames=Topics", tok, nil), http.StatusOK)
	golden(t, "classifiers_filtered", r.Body.Bytes())
	if got := e.jsonReq("GET", "/Conversations/Classifiers?PageSize=1", tok, nil).Body.String(); strings.Count(got, `"id"`) != 1 {
		t.Fatalf("page of 1: %s", got)
	}
	first := min(id, pii)
	if got := e.jsonReq("GET", "/Conversations/Classifiers?LastId="+first, tok, nil).Body.String(); strings.Contains(got, first) || strings.Count(got, `"id"`) != 1 {
		t.Fatalf("after LastId: %s", got)
	}

	// Deleted: 204, then 404 and gone from the list.
	mustStatus(t, e.jsonReq("DELETE", "/Conversations/Classifiers/"+id, tok, nil), http.StatusNoContent)
	mustStatus(t, e.jsonReq("GET", "/Conversations/Classifiers/"+id, tok, nil), http.StatusNotFound)
	if got := e.jsonReq("GET", "/Conversations/Classifiers", tok, nil).Body.String(); strings.Contains(got, id) {
		t.Fatalf("deleted classifier listed: %s", got)
	}
	// Inactive classifiers are not listed.
	mustStatus(t, e.jsonReq("PUT", "/Conversations/Classifiers/"+pii, tok, `{"isActive":false}`), http.StatusOK)
	if got := e.jsonReq("GET", "/Conversations/Classifiers", tok, nil).Body.String(); got != "[]" {
		t.Fatalf("inactive listed: %s", got)
	}
}

func TestClassifierValidation(t *testing.T) {
	t.Parallel()
	e := newTestEnv(t, Options{})
	tok := e.token(t)
	for _, tt := range []struct {
		name, body, field, golden string
	}{
		{"unknown field in a rule", classifierBody("x", "Classifier", "Topics", `{"groups":[{"rules":[{"phrase":["x"]}]}]}`),
			"definition.groups[0].rules[0].phrase", "classifier_bad_definition"},
		{"bad window", classifierBody("x", "Classifier", "Topics", `{"groups":[{"rules":[{"phrases":["x"],"window":{"startMs":9,"endMs":3}}]}]}`),
			"definition.groups[0].rules[0].window.endMs", ""},
		{"empty phrases", classifierBody("x", "Classifier", "Topics", `{"groups":[{"rules":[{"phrases":[]}]}]}`),
			"definition.groups[0].rules[0].phrases", ""},
		{"no LLM endpoint", classifierBody("x", "LLM Model", "Topics", `{"prompt":"Did they cancel?"}`), "classifierType", "classifier_no_llm"},
		{"unknown type", classifierBody("x", "Regex", "Topics", `{}`), "classifierType", ""},
		{"unknown category", classifierBody("x", "Classifier", "Sales", cancelDefinition), "categoryName", ""},
		{"definition not an object", classifierBody("x", "Classifier", "Topics", `"cancel"`), "definition", ""},
		{"missing fields", `{}`, "name", ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r := mustStatus(t, e.jsonReq("POST", "/Conversations/Classifiers", tok, tt.body), http.StatusBadRequest)
			errs, _ := r.json(t)["errors"].(map[string]any)
			if _, ok := errs[tt.field]; !ok {
				t.Fatalf("errors %v lack %s", errs, tt.field)
			}
			if tt.golden != "" {
				golden(t, tt.golden, r.Body.Bytes())
			}
		})
	}
	for _, q := range []string{"PageSize=0", "PageSize=1001", "LastId=nope", "CategoryNames=Topics,Sales", "ClassifierTypes=Regex"} {
		r := mustStatus(t, e.jsonReq("GET", "/Conversations/Classifiers?"+q, tok, nil), http.StatusBadRequest)
		if q == "CategoryNames=Topics,Sales" {
			golden(t, "classifiers_bad_category", r.Body.Bytes())
		}
	}
	mustStatus(t, e.jsonReq("GET", "/Conversations/Classifiers/not-a-guid", tok, nil), http.StatusBadRequest)
}

// Another organization's classifier answers exactly as one that exists
// nowhere.
func TestClassifierTenancy(t *testing.T) {
	t.Parallel()
	e := newTestEnv(t, Options{})
	tokA := e.token(t)
	id := mustStatus(t, e.jsonReq("POST", "/Conversations/Classifiers", tokA, classifierBody("Cancellation", "Classifier", "Topics", cancelDefinition)), http.StatusCreated).id(t)
	orgB, _ := e.cat.Orgs.CreateOrganization(context.Background(), "globex")
	tokB, _ := e.tokens.IssueForOperator(orgB.ID, oauth.Scope)
	unknown := uuid.NewString()
	for _, p := range []struct{ method, body string }{{"GET", ""}, {"PUT", `{"name":"Mallory"}`}, {"DELETE", ""}} {
		answer := func(target string) string {
			var body any
			if p.body != "" {
				body = p.body
			}
			r := e.jsonReq(p.method, "/Conversations/Classifiers/"+target, tokB, body)
			return r.Result().Status + " " + traceID.ReplaceAllString(strings.ReplaceAll(r.Body.String(), target, "<ID>"), "")
		}
		if got, want := answer(id), answer(unknown); got != want || !strings.HasPrefix(got, "404") {
			t.Errorf("%s: foreign id answers %s, unknown id %s", p.method, got, want)
		}
	}
	if got := e.jsonReq("GET", "/Conversations/Classifiers", tokB, nil).Body.String(); got != "[]" {
		t.Fatalf("organization B lists %s", got)
	}
	// A's classifier is untouched.
	if v := e.jsonReq("GET", "/Conversations/Classifiers/"+id, tokA, nil).json(t); v["name"] != "Cancellation" || v["version"] != float64(1) {
		t.Fatalf("%v", v)
	}
}

// A dry run counts hits over processed conversations in the range and
// writes nothing.
func TestClassifierDryRun(t *testing.T) {
	t.Parallel()
	e := newTestEnv(t, Options{})
	tok := e.token(t)
	chat := func(customer string) string {
		return `{"messages":[{"participant":"Agent","text":"Thanks for calling."},{"participant":"Customer","text":"` + customer + `"}]}`
	}
	var cancelling []string
	for i, text := range []string{"I want to cancel my account.", "Where is my order?", "Please cancel my account today.", "Hello."} {
		id := mustStatus(t, e.upload("/TextMedia/Upload", tok, meta("LocaleId", 1033), file(fmt.Sprintf("c%d.json", i), chat(text))), 200).json(t)["id"].(string)
		if strings.Contains(text, "cancel") {
			cancelling = append(cancelling, id)
		}
	}
	e.runIngest(t)
	id := mustStatus(t, e.jsonReq("POST", "/Conversations/Classifiers", tok, classifierBody("Cancellation", "Classifier", "Topics",
		`{"groups":[{"rules":[{"phrases":["cancel my account"],"speaker":"Customer"}]}]}`)), http.StatusCreated).id(t)
	today := time.Now().UTC().Format(time.DateOnly)
	r := mustStatus(t, e.jsonReq("POST", "/Conversations/Classifiers/"+id+"/Test", tok, `{"startDate":"`+today+`","endDate":"`+today+`"}`), 200)
	v := r.json(t)
	samples, _ := v["sampleConversationIds"].([]any)
	if v["evaluated"] != float64(4) || v["hits"] != float64(2) || len(samples) != 2 || v["truncated"] != false || v["version"] != float64(1) {
		t.Fatalf("%v", v)
	}
	for _, s := range samples {
		if !slices.Contains(cancelling, s.(string)) {
			t.Fatalf("sample %v is not a cancelling conversation", s)
		}
	}
	// Another range: nothing.
	r = mustStatus(t, e.jsonReq("POST", "/Conversations/Classifiers/"+id+"/Test", tok, `{"startDate":"2025-10-01","endDate":"2025-10-02"}`), 200)
	if v := r.json(t); v["evaluated"] != float64(0) {
		t.Fatalf("%v", v)
	}
	for body, field := range map[string]string{
		`{"endDate":"2025-10-02"}`:                          "startDate",
		`{"startDate":"2025-10-05","endDate":"2025-10-02"}`: "endDate",
		`{"startDate":"2025-10-01","endDate":"2025-12-02"}`: "endDate",
		`{"startDate":"soon","endDate":"2025-10-02"}`:       "startDate",
	} {
		r := mustStatus(t, e.jsonReq("POST", "/Conversations/Classifiers/"+id+"/Test", tok, body), 400)
		if errs, _ := r.json(t)["errors"].(map[string]any); errs[field] == nil {
			t.Errorf("%s: errors %v lack %s", body, errs, field)
		}
	}
	mustStatus(t, e.jsonReq("POST", "/Conversations/Classifiers/"+uuid.NewString()+"/Test", tok, `{"startDate":"2025-10-01","endDate":"2025-10-02"}`), 404)
}

// A reclassification runs as a job: 202 with its id, its progress and
// outcome at GET /Jobs/{id} (the caller's organization only), and the
// classifier's new results in the lake under the job's run.
func TestReclassify(t *testing.T) {
	t.Parallel()
	e := newTestEnv(t, Options{})
	tok := e.token(t)
	for i, text := range []string{"I want to cancel my account.", "Where is my order?"} {
		mustStatus(t, e.upload("/TextMedia/Upload", tok, meta("LocaleId", 1033), file(fmt.Sprintf("c%d.json", i),
			`{"messages":[{"participant":"Customer","text":"`+text+`"}]}`)), 200)
	}
	e.runIngest(t)
	id := mustStatus(t, e.jsonReq("POST", "/Conversations/Classifiers", tok, classifierBody("Cancellation", "Classifier", "Topics",
		`{"groups":[{"rules":[{"phrases":["cancel my account"]}]}]}`)), http.StatusCreated).id(t)
	today := time.Now().UTC().Format(time.DateOnly)
	r := mustStatus(t, e.jsonReq("POST", "/Conversations/Classifiers/"+id+"/Reclassify", tok, `{"startDate":"`+today+`","endDate":"`+today+`"}`), http.StatusAccepted)
	job, _ := r.json(t)["jobId"].(string)
	if job == "" || r.Header().Get("Location") != "/Jobs/"+job {
		t.Fatalf("%s %v", r.Body, r.Header())
	}
	e.jobs.Wait()
	v := mustStatus(t, e.jsonReq("GET", "/Jobs/"+job, tok, nil), 200).json(t)
	counts, _ := v["counts"].(map[string]any)
	if v["status"] != "succeeded" || v["job"] != "reclassify" || counts["conversations"] != float64(2) || counts["classifier_results"] != float64(2) {
		t.Fatalf("%v", v)
	}
	var hits int
	day := time.Now().UTC()
	files, err := e.cat.Manifest.LakeFiles(context.Background(), e.org.ID, "classifier_results", day.AddDate(0, 0, -1), day.AddDate(0, 0, 1))
	if err != nil || len(files) != 1 {
		t.Fatalf("%v %v", files, err)
	}
	e.lake.QueryRowContext(context.Background(), `SELECT count(*) FILTER (result = 'true') FROM read_parquet(`+lakedb.FileList(e.lake.Root(), []string{files[0].Path})+`) WHERE run_id = ?`, job).Scan(&hits)
	if hits != 1 {
		t.Fatalf("%d hits", hits)
	}
	// Another organization cannot see the job; bad requests are 400s.
	orgB, _ := e.cat.Orgs.CreateOrganization(context.Background(), "globex")
	tokB, _ := e.tokens.IssueForOperator(orgB.ID, oauth.Scope)
	mustStatus(t, e.jsonReq("GET", "/Jobs/"+job, tokB, nil), 404)
	mustStatus(t, e.jsonReq("POST", "/Conversations/Classifiers/"+id+"/Reclassify", tokB, `{"startDate":"`+today+`","endDate":"`+today+`"}`), 404)
	mustStatus(t, e.jsonReq("POST", "/Conversations/Classifiers/"+id+"/Reclassify", tok, `{"startDate":"`+today+`"}`), 400)
}

// Dry runs and reclassifications are bounded: while the organization has
// one running, another is a 429 with Retry-After (and no job is recorded);
// other organizations are not held up.
func TestEvaluationsAreBounded(t *testing.T) {
	t.Parallel()
	e := newTestEnv(t, Options{})
	tok := e.token(t)
	id := mustStatus(t, e.jsonReq("POST", "/Conversations/Classifiers", tok, classifierBody("Cancellation", "Classifier", "Topics", cancelDefinition)), http.StatusCreated).id(t)
	today := time.Now().UTC().Format(time.DateOnly)
	body := `{"startDate":"` + today + `","endDate":"` + today + `"}`
	release, err := e.srv.deps.Evaluations.Take(e.org.ID)
	if err != nil {
		t.Fatal(err)
	}
	for _, op := range []string{"/Test", "/Reclassify"} {
		r := e.jsonReq("POST", "/Conversations/Classifiers/"+id+op, tok, body)
		if r.Code != http.StatusTooManyRequests || r.Header().Get("Retry-After") != "10" || !strings.Contains(r.Body.String(), "already has a classifier dry run") {
			t.Errorf("%s while one runs: %d %q %s", op, r.Code, r.Header().Get("Retry-After"), r.Body)
		}
	}
	if runs, _ := e.cat.Jobs.JobRuns(context.Background(), "reclassify", 10); len(runs) != 0 {
		t.Errorf("a refused reclassification was recorded: %+v", runs)
	}
	other, err := e.srv.deps.Evaluations.Take("another-organization")
	if err != nil {
		t.Fatalf("another organization: %v", err)
	}
	other()
	release()
	mustStatus(t, e.jsonReq("POST", "/Conversations/Classifiers/"+id+"/Test", tok, body), 200)
	mustStatus(t, e.jsonReq("POST", "/Conversations/Classifiers/"+id+"/Reclassify", tok, body), http.StatusAccepted)
	e.jobs.Wait()
	// The job's end gave its slot back.
	if release, err := e.srv.deps.Evaluations.Take(e.org.ID); err != nil {
		t.Errorf("after the reclassification: %v", err)
	} else {
		release()
	}
}
