package main

import (
	"archive/tar"
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"net"
	"slices"
	"strconv"

	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
	"github.com/getkin/kin-openapi/routers/legacy"
)

// vendorDocument is the vendor's OpenAPI document (../shared/reference),
// found in this directory or one of its parents.
func vendorDocument(t *testing.T) *openapi3.T {
	t.Helper()
	dir, err := filepath.Abs(".")
	if err != nil {
		t.Fatal(err)
	}
	for {
		path := filepath.Join(dir, "shared", "reference", "acxapi-v1-openapi.json")
		if _, err := os.Stat(path); err == nil {
			doc, err := openapi3.NewLoader().LoadFromFile(path)
			if err != nil {
				t.Fatalf("the vendor's document does not load: %v", err)
			}
			doc.Servers = nil // requests go to the test's server
			return doc
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("shared/reference/acxapi-v1-openapi.json not found beside the checkout")
		}
		dir = parent
	}
}

// notServed are the vendor's operations Earshot does not serve: none now;
// the test checks that every operation of the document is called.
var notServed = map[string]bool{}

// extensions are the response members CONTRACT.md adds ([extension]),
// by operation: the test removes them before validating, and every other
// member must be the document's. A path is a member name, its parents
// first ("modelResults.evidence"); arrays are walked through.
var extensions = map[string][]string{
	// §4: a chat's archive, and the agent's code beside its id and name.
	"GET /Metadata":        {"uploadId", "agentCode"},
	"POST /Metadata":       {"uploadId", "agentCode"},
	"PATCH /Metadata/{id}": {"uploadId", "agentCode"},
	// §7: id = conversationId.
	"GET /ModelResults":              {"id"},
	"GET /ModelResults/Conversation": {"id"},
	// §5: a conversation still processing says so.
	"GET /Conversations/Transcriptions/{conversationId}": {"status", "message"},
	"POST /Conversations/Transcriptions":                 {"transcriptions.status", "transcriptions.message"},
	// Evaluations: their status, form, score and source (Human or Auto); the conversation's
	// metadata as /Metadata shows it.
	// An Auto evaluation's answers: the classifiers' tags, who reviewed.
	"GET /Evaluations": {"status", "formId", "score", "source", "metadata.uploadId", "metadata.agentCode",
		"questions.answers.autoTagIds", "questions.answers.reviewedBy", "questions.answers.reviewedOn"},
	"GET /Evaluations/Modules": {"metadata.uploadId", "metadata.agentCode"},
	// SCIM: the members RFC 7643 and 7644 require that the document
	// leaves out — a list response's and a schema's "schemas" (RFC 7644
	// §3.4.2, RFC 7643 §7), an authentication scheme's "primary" (§5).
	"GET /scim/v2/ServiceProviderConfig": {"authenticationSchemes.primary"},
	"GET /scim/v2/ResourceTypes":         {"schemas"},
	"GET /scim/v2/Schemas":               {"schemas", "Resources.schemas"},
	"GET /scim/v2/Schemas/{SchemaUri}":   {"schemas"},
	"GET /scim/v2/Users":                 {"schemas", "Resources.name.formatted"},
	// SCIM: the attributes an identity provider sends beyond the
	// document's User (RFC 7643's name.formatted, displayName, the
	// enterprise extension, groups …) are kept and returned (issue 41);
	// the test's user has a formatted name.
	"POST /scim/v2/Users":           {"name.formatted"},
	"GET /scim/v2/Users/{UserId}":   {"name.formatted"},
	"PUT /scim/v2/Users/{UserId}":   {"name.formatted"},
	"PATCH /scim/v2/Users/{UserId}": {"name.formatted"},
	// Workflows: their template, current level and start.
	"GET /Workflows": {"templateId", "currentLevel", "createdOn"},
	// §9: a node's parent; an agent's hierarchy nodes.
	"POST /Hierarchy":              {"parentId"},
	"PUT /Hierarchy/{HierarchyId}": {"parentId"},
	"GET /Agent/All":               {"osms"},
	"GET /Agent/{AgentId}":         {"osms"},
	"POST /Agent":                  {"osms"},
	"PUT /Agent/{AgentId}":         {"osms"},
}

// unusableRequestSchema are the operations whose request schema no real
// request fits, with why: their requests are not checked against it (the
// responses are).
var unusableRequestSchema = map[string]string{
	"PATCH /scim/v2/Users/{UserId}": "an operation's value is typed as .NET's JsonNode (members options, parent, root): no RFC 7644 PATCH fits it",
}

// otherMediaType are the operations whose success answers carry another
// media type than the document declares, with why: the body is checked
// against the declared schema all the same.
var otherMediaType = map[string]string{
	"PATCH /scim/v2/Users/{UserId}": "application/json declared; RFC 7644 §8.1 makes every SCIM response application/scim+json, as the other SCIM operations declare",
}

// declaredOneListed are the operations whose document describes a list
// ("Returns a list of interactions") while its schema declares one object:
// Earshot answers the list, and each item must validate as that object.
var declaredOneListed = map[string]bool{"GET /Interactions": true, "POST /Interactions": true}

// extraStatuses are the statuses CONTRACT.md answers that the document
// does not declare for the operation, with why; anyOperation's apply to
// every operation. Their bodies are problem details (CONTRACT §1),
// checked by the API's own tests.
var (
	anyOperation = map[int]string{
		401: "§1: a missing or bad token",
		403: "§1: a token without the acxapi scope",
		429: "§1: the rate limit",
	}
	extraStatuses = map[string]map[int]string{
		"GET /Metadata":        {400: "§1: a bad parameter is a 400 naming it"},
		"PATCH /Metadata/{id}": {400: "§1: a bad member", 404: "§1: an unknown id"},
		"GET /User/{UserId}":   {404: "§9: an unknown id"},
		"PUT /User/{UserId}":   {404: "§9: an unknown id"},
		"GET /Roles/All":       {400: "§1: IsActive not a boolean"},
	}
)

// conformance is one request of the test.
type conformance struct {
	op     string // "METHOD /document/path"
	target string // path and query; the operation's path when empty
	body   []byte // JSON
	// anonymous sends no token; provisioning a token with scope scim.
	anonymous, provisioning bool
}

// TestConformanceWithVendorDocument runs a real server over data in every
// state (processed, processing, failed, reviewed, sampled; chats, calls,
// archives), calls every operation of the vendor's document that Earshot
// serves, and validates each response against the document's schema for
// that operation and status. It fails on any divergence not listed above.
func TestConformanceWithVendorDocument(t *testing.T) {
	doc := vendorDocument(t)
	if err := doc.Validate(context.Background(), openapi3.DisableExamplesValidation()); err != nil {
		t.Logf("the vendor's document has validation remarks (kept as is): %v", err)
	}
	router, err := legacy.NewRouter(doc, openapi3.DisableExamplesValidation())
	if err != nil {
		t.Fatal(err)
	}

	data := t.TempDir()
	notes, err := run(t, "demo", "--data", data, "--chats", "40", "--calls", "1")
	if err != nil {
		t.Fatalf("demo: %v\n%s", err, notes)
	}
	creds := regexp.MustCompile(`client_id=(\S+) -d client_secret=(\S+) `).FindStringSubmatch(notes)
	if creds == nil {
		t.Fatalf("the demo printed no client credentials:\n%s", notes)
	}
	// The organization's emission endpoint, on loopback: this deployment
	// exempts it from the guard. The test makes more calls than the
	// default burst allows in a second.
	hook := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		io.WriteString(w, `{"receiptId":"CONF-1","uid":"U-1"}`)
	}))
	defer hook.Close()
	addr, stop := startServe(t, "--data", data, "--schedule-ingest", "off", "--rate-burst", "1000",
		"--schedule-emit", "@every 1s", "--signed-url-allow-http", "--signed-url-allow", "127.0.0.1/32")
	defer stop()
	c := &apiClient{t: t, base: "http://" + addr}
	c.login(creds[1], creds[2])
	if code, body := c.do("PUT", "/Emission", []byte(`{"url":"`+hook.URL+`/earshot"}`), "application/json"); code != 200 {
		t.Fatalf("emission endpoint: %d %s", code, body)
	}
	// The same client, given the scope scim, provisions users.
	if out, err := run(t, "admin", "client", "scopes", creds[1], "acxapi", "scim", "--data", data); err != nil {
		t.Fatalf("client scopes: %v\n%s", err, out)
	}
	c.login(creds[1], creds[2])
	provisioner := &apiClient{t: t, base: c.base}
	provisioner.loginScope(creds[1], creds[2], "scim")
	scimUser := provisionUser(t, provisioner)

	// The states the demo does not leave: a failed call, a failed chat in
	// an archive (both processed by an ingest run), a conversation still
	// processing, a reviewed one.
	c.upload("/Media/Upload", "conformance/broken-call.wav", "Audio", []byte("RIFF not audio"))
	c.upload("/Media/Upload", "conformance/chats.tar", "Chat", tarOf(map[string]string{
		"good.json":   `{"messages":[{"participant":"Agent","text":"Thanks for calling, how can I help?"},{"participant":"Customer","text":"My card was charged twice."}]}`,
		"broken.json": `{"messages": [`,
	}))
	// A conversation whose client chose its id, one that sorts before every
	// other: it is shown and taken under that id, and cursors still walk
	// in arrival order past it.
	const chosenID = "00000000-0000-4000-8000-000000000001"
	if code, body, _ := c.uploadRaw("/TextMedia/Upload", "chosen.json", "", []byte(`{"messages":[{"participant":"Agent","text":"Thanks for calling."},{"participant":"Customer","text":"I would like to cancel my card."}]}`),
		map[string]any{"Id": chosenID}); code != 200 {
		t.Fatalf("TextMedia with an Id: %d %s", code, body)
	}
	if out, err := run(t, "jobs", "run", "ingest", "--data", data); err != nil {
		t.Fatalf("jobs run ingest: %v\n%s", err, out)
	}
	c.upload("/Media/Upload", "conformance/pending.tar", "Chat", tarOf(map[string]string{"a.json": `{"messages":[{"participant":"Agent","text":"Hello"}]}`}))

	var classifiers []struct{ ID string }
	c.getJSON("/Conversations/Classifiers", &classifiers)
	var modelIDs []string
	for _, k := range classifiers {
		modelIDs = append(modelIDs, k.ID)
	}
	var nodes []struct{ ID, Code string }
	c.getJSON("/Hierarchy", &nodes)
	var agents []struct{ ID string }
	c.getJSON("/Agent/All", &agents)
	var users []struct{ ID, UserName string }
	c.getJSON("/User/All", &users)
	today := time.Now().UTC().Format(time.DateOnly)
	var records []struct{ ID, Status, MediaType string }
	c.getJSON("/Metadata?StartDate="+today+"&PageSize=1000", &records)
	states := map[string]string{}
	var conversation, failed, processing string
	for _, r := range records {
		states[r.Status+" "+r.MediaType] = r.ID
		switch {
		case r.MediaType == "Audio" && (r.Status == "ReadyToSample" || r.Status == "Sampled"):
			conversation = r.ID // the call: QA sampling may have taken it
		case r.Status == "FailedToProcess" && failed == "":
			failed = r.ID
		case r.Status == "Processing":
			processing = r.ID
		}
	}
	for _, want := range []string{"ReadyToSample ProcessedChat", "Sampled ProcessedChat", "FailedToProcess Audio",
		"FailedToProcess ProcessedChat", "ReadyToSample Chat", "Processing Chat"} {
		if states[want] == "" {
			t.Fatalf("no record is %s: the data does not cover every state (%v)", want, states)
		}
	}
	if conversation == "" {
		t.Fatalf("no processed call: the data does not cover every state (%v)", states)
	}
	review, _ := json.Marshal(map[string]any{"conversationId": conversation, "eventType": "HumanReview", "reviewer": "qa@example.com",
		"modelResults": []map[string]any{{"modelId": modelIDs[0], "result": true}}})
	if code, body := c.do("POST", "/ModelResults/Reviews", review, "application/json"); code != 200 {
		t.Fatalf("review: %d %s", code, body)
	}

	evaluation := evaluate(t, c, conversation, users[0].UserName)
	// The emit job (every second here) delivers the new result sets.
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(200 * time.Millisecond) {
		code, body := c.do("GET", "/Receipts?StartDate="+today+"&EndDate="+today+"&Status=ReadyToSample&PageSize=1000", nil, "")
		if code == 200 && strings.Contains(string(body), `"receiptId":"CONF-1"`) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no result set was delivered: %d %s", code, body)
		}
	}

	models := strings.Join(modelIDs, ",")
	week := time.Now().UTC().AddDate(0, 0, -6).Format(time.DateOnly)
	jsonBody := func(v any) []byte { b, _ := json.Marshal(v); return b }
	calls := []conformance{
		{op: "GET /Metadata", target: "/Metadata?StartDate=" + today + "&PageSize=1000"},
		{op: "GET /Metadata", target: "/Metadata?MediaType=Audio&PageSize=5"},
		{op: "POST /Metadata", body: jsonBody(map[string]any{"startDate": today + "T00:00:00Z", "endDate": today + "T23:59:59.999Z", "pageSize": 1000})},
		{op: "PATCH /Metadata/{id}", target: "/Metadata/" + conversation, body: jsonBody(map[string]any{"clientCallId": "conformance-1"})},
		{op: "GET /ModelResults", target: "/ModelResults?startDate=" + today + "&pageSize=1000&includeUnprocessedMedia=true&modelIds=" + models},
		{op: "GET /ModelResults", target: "/ModelResults?startDate=" + today + "&pageSize=5&modelIds=" + models},
		{op: "GET /ModelResults/Conversation", target: "/ModelResults/Conversation?conversationIds=" + strings.Join([]string{conversation, failed, processing}, ",") + "&modelIds=" + models},
		{op: "GET /Conversations/Insights", target: "/Conversations/Insights?StartDate=" + week + "&EndDate=" + today + "&PageSize=1000"},
		{op: "POST /Conversations/Insights", body: jsonBody(map[string]any{"startDate": week, "endDate": today, "pageSize": 5})},
		{op: "GET /Conversations/Transcriptions/{conversationId}", target: "/Conversations/Transcriptions/" + conversation},
		{op: "GET /Conversations/Transcriptions/{conversationId}", target: "/Conversations/Transcriptions/" + processing},
		{op: "GET /Conversations/Transcriptions/{conversationId}", target: "/Conversations/Transcriptions/" + failed},
		{op: "POST /Conversations/Transcriptions", body: jsonBody(map[string]any{"conversationIds": []string{conversation, failed, processing, "00000000-0000-0000-0000-000000000000"}})},
		{op: "GET /Conversations/Classifiers", target: "/Conversations/Classifiers?PageSize=1000"},
		{op: "GET /Hierarchy/All"},
		{op: "POST /Hierarchy", body: jsonBody(map[string]any{"name": "Conformance", "code": "CONF", "parentId": nodes[0].ID})},
		{op: "PUT /Hierarchy/{HierarchyId}", target: "/Hierarchy/" + nodes[0].ID, body: jsonBody(map[string]any{"category": "Region"})},
		{op: "GET /Agent/All"},
		{op: "GET /Agent/{AgentId}", target: "/Agent/" + agents[0].ID},
		{op: "POST /Agent", body: jsonBody(map[string]any{"firstName": "Con", "lastName": "Formance", "agentEmail": "con@example.com", "agentCode": "conf-1"})},
		{op: "PUT /Agent/{AgentId}", target: "/Agent/" + agents[0].ID, body: jsonBody(map[string]any{"lastName": "Renamed"})},
		{op: "GET /User/All"},
		{op: "GET /User/{UserId}", target: "/User/" + users[0].ID},
		{op: "GET /User", target: "/User?UserName=" + url.QueryEscape(users[0].UserName)},
		{op: "POST /User", body: jsonBody(map[string]any{"firstName": "Con", "lastName": "Formance", "userName": "conformance", "email": "conformance@example.com", "roleName": "Analyst"})},
		{op: "PUT /User/{UserId}", target: "/User/" + users[0].ID, body: jsonBody(map[string]any{"lastName": "Renamed"})},
		{op: "GET /Roles/All"},
		{op: "PUT /UserHierarchy/{UserId}/{HierarchyId}", target: "/UserHierarchy/" + users[0].ID + "/" + nodes[0].ID,
			body: jsonBody(map[string]any{"accessLevel": "Manage", "permissions": []string{"Audio", "Chat"}})},
		{op: "GET /UserHierarchy/{UserId}/{HierarchyId}", target: "/UserHierarchy/" + users[0].ID + "/" + nodes[0].ID},
		{op: "GET /UserHierarchy/{UserId}/All", target: "/UserHierarchy/" + users[0].ID + "/All"},
		{op: "POST /Media/Upload"},
		{op: "POST /TextMedia/Upload"},
		{op: "GET /Evaluations"},
		{op: "GET /Evaluations/Modules"},
		{op: "GET /scim/v2/ServiceProviderConfig", provisioning: true},
		{op: "GET /scim/v2/ResourceTypes", provisioning: true},
		{op: "GET /scim/v2/ResourceTypes/{ResourceTypeId}", target: "/scim/v2/ResourceTypes/User", provisioning: true},
		{op: "GET /scim/v2/Schemas", provisioning: true},
		{op: "GET /scim/v2/Schemas/{SchemaUri}", target: "/scim/v2/Schemas/urn:ietf:params:scim:schemas:core:2.0:User", provisioning: true},
		{op: "GET /scim/v2/Users", target: "/scim/v2/Users?filter=" + url.QueryEscape(`userName eq "bjensen"`) + "&startIndex=1&count=10", provisioning: true},
		{op: "POST /scim/v2/Users", provisioning: true, body: []byte(`{"schemas":["urn:ietf:params:scim:schemas:core:2.0:User"],"userName":"jsmith",
			"name":{"givenName":"Jo","familyName":"Smith"},"emails":[{"value":"jsmith@example.com","type":"work","primary":true}],"active":true}`)},
		{op: "GET /scim/v2/Users/{UserId}", target: "/scim/v2/Users/" + scimUser, provisioning: true},
		{op: "PUT /scim/v2/Users/{UserId}", target: "/scim/v2/Users/" + scimUser, provisioning: true, body: []byte(`{"schemas":["urn:ietf:params:scim:schemas:core:2.0:User"],
			"userName":"bjensen","name":{"givenName":"Barbara","familyName":"Jensen"},"emails":[{"value":"bjensen@example.com","primary":true}],"active":true}`)},
		{op: "PATCH /scim/v2/Users/{UserId}", target: "/scim/v2/Users/" + scimUser, provisioning: true, body: []byte(`{"schemas":["urn:ietf:params:scim:api:messages:2.0:PatchOp"],
			"operations":[{"op":"replace","value":{"active":false}}]}`)},
		{op: "DELETE /scim/v2/Users/{UserId}", target: "/scim/v2/Users/" + scimUser, provisioning: true},
		{op: "GET /Workflows"},
		{op: "GET /Receipts", target: "/Receipts?StartDate=" + today + "&EndDate=" + today + "&Status=ReadyToSample&PageSize=1000"},
		{op: "GET /Receipts", target: "/Receipts?DateReference=ArrivalDate&StartDate=" + week + "&EndDate=" + today + "&Status=ReadyToSample&HierarchyCodes=" + nodes[0].Code + "&LastId=" + records[0].ID + "&PageSize=5"},
		{op: "GET /Workflows", target: "/Workflows?StartDate=" + week + "&EndDate=" + today + "&DateReference=InteractionDate&PageSize=100"},
		{op: "GET /Workflows", target: "/Workflows?DateReference=CreatedOnDate&LastId=" + records[0].ID},

		// More of each operation's parameters.
		{op: "GET /Metadata", target: "/Metadata?StartDate=" + week + "&EndDate=" + today + "&HierarchyIds=" + nodes[0].ID + "&LastId=" + records[0].ID + "&PageSize=10"},
		{op: "GET /Metadata", target: "/Metadata?ClientCallId=demo-call-1,conformance-1&MediaType=Video"},
		{op: "POST /Metadata", body: jsonBody(map[string]any{"startDate": week + "T00:00:00Z", "endDate": today + "T23:59:59Z", "pageSize": 10, "mediaType": "ProcessedChat",
			"clientCallIds": []string{}, "hierarchyIds": []string{nodes[0].ID}, "lastId": records[0].ID})},
		{op: "GET /ModelResults", target: "/ModelResults?startDate=" + week + "&endDate=" + today + "&hierarchyCodes=" + nodes[0].Code + "&lastId=" + records[0].ID + "&modelIds=" + models},
		{op: "GET /ModelResults/Conversation", target: "/ModelResults/Conversation?clientCallIds=demo-call-1,conformance-1&includeUnprocessedMedia=false&modelIds=" + models},
		{op: "GET /Conversations/Insights", target: "/Conversations/Insights?DateReference=InteractionDate&StartDate=" + week + "&EndDate=" + today +
			"&HierarchyCodes=" + nodes[0].Code + "&ClassifierTypes=Classifier,Core%20AI%20Model&ClassifierCategoryNames=&PageSize=3"},
		{op: "POST /Conversations/Insights", body: jsonBody(map[string]any{"dateReference": "ArrivalDate", "startDate": week, "endDate": today,
			"classifierIds": modelIDs[:2], "hierarchyIds": []string{}, "hierarchyCodes": []string{nodes[0].Code}, "pageSize": 3})},
		{op: "GET /Conversations/Classifiers", target: "/Conversations/Classifiers?CategoryNames=Topics,Process&ClassifierTypes=&PageSize=2"},
		{op: "GET /Hierarchy/All", target: "/Hierarchy/All?IsActive=true"},
		{op: "GET /Agent/All", target: "/Agent/All?IsActive=true"},
		{op: "GET /User/All", target: "/User/All?IsActive=false"},
		{op: "GET /Roles/All", target: "/Roles/All?IsActive=true"},
		{op: "GET /Evaluations", target: "/Evaluations?StartDate=" + today + "&EndDate=" + today + "&Status=Completed&PageSize=5&LastId=0"},
		{op: "GET /Evaluations", target: "/Evaluations?Status=NotStarted"},
		{op: "GET /Evaluations/Modules", target: "/Evaluations/Modules?StartDate=" + week + "&Status=Completed&HierarchyId=" + nodes[0].ID + "&LastId=" + evaluation + "&PageSize=20"},
		{op: "GET /UserHierarchy/{UserId}/All", target: "/UserHierarchy/" + users[0].ID + "/All?IsActive=true"},
		{op: "PUT /UserHierarchy/{UserId}/{HierarchyId}", target: "/UserHierarchy/" + users[0].ID + "/" + nodes[0].ID,
			body: jsonBody(map[string]any{"accessLevel": "", "permissions": []string{}})},
		{op: "GET /Interactions", target: "/Interactions?StartDate=" + week + "&EndDate=" + today + "&PageSize=20"},
		{op: "GET /Interactions", target: "/Interactions?DateReference=InteractionDate&StartDate=" + week + "&EndDate=" + today + "&Status=ReadyToSample&PageSize=5&LastId=" + records[0].ID},
		{op: "POST /Interactions", body: jsonBody(map[string]any{"startDate": week, "endDate": today, "status": "Sampled", "pageSize": 20, "hierarchyIds": []string{nodes[0].ID}})},
		{op: "GET /Interactions/{AmdID}", target: "/Interactions/" + conversation},
		{op: "GET /Interactions/{AmdID}", target: "/Interactions/" + processing},
		{op: "GET /Interactions/{AmdID}", target: "/Interactions/" + failed},

		// Errors, with the statuses the document declares (or lists above).
		{op: "GET /Metadata", target: "/Metadata?StartDate=yesterday"},
		{op: "POST /Metadata", body: jsonBody(map[string]any{"startDate": today})},
		{op: "PATCH /Metadata/{id}", target: "/Metadata/00000000-0000-0000-0000-000000000000", body: jsonBody(map[string]any{"clientCallId": "x"})},
		{op: "GET /ModelResults", target: "/ModelResults?startDate=" + today},
		{op: "GET /ModelResults/Conversation", target: "/ModelResults/Conversation?modelIds=" + models},
		{op: "GET /Conversations/Insights", target: "/Conversations/Insights?StartDate=2026-01-01&EndDate=2026-01-30"},
		{op: "GET /Conversations/Insights", target: "/Conversations/Insights?StartDate=2025-10-01&EndDate=2025-10-02"},
		{op: "POST /Conversations/Insights", body: jsonBody(map[string]any{"startDate": today})},
		{op: "GET /Conversations/Transcriptions/{conversationId}", target: "/Conversations/Transcriptions/00000000-0000-0000-0000-000000000000"},
		{op: "POST /Conversations/Transcriptions", body: jsonBody(map[string]any{"conversationIds": []string{}})},
		{op: "GET /Agent/{AgentId}", target: "/Agent/00000000-0000-0000-0000-000000000000"},
		{op: "PUT /Agent/{AgentId}", target: "/Agent/00000000-0000-0000-0000-000000000000", body: jsonBody(map[string]any{"lastName": "X"})},
		{op: "POST /Agent", body: jsonBody(map[string]any{"firstName": "No"})},
		{op: "POST /Hierarchy", body: jsonBody(map[string]any{"code": "NONAME"})},
		{op: "PUT /Hierarchy/{HierarchyId}", target: "/Hierarchy/00000000-0000-0000-0000-000000000000", body: jsonBody(map[string]any{"name": "X"})},
		{op: "GET /User", target: "/User?UserName=nobody"},
		{op: "GET /User", target: "/User"},
		{op: "GET /User/{UserId}", target: "/User/00000000-0000-0000-0000-000000000000"},
		{op: "POST /User", body: jsonBody(map[string]any{"firstName": "No"})},
		{op: "PUT /User/{UserId}", target: "/User/" + users[0].ID, body: jsonBody(map[string]any{"roleName": "Emperor"})},
		{op: "GET /Agent/All", target: "/Agent/All", anonymous: true},
		{op: "GET /Interactions", target: "/Interactions?StartDate=" + today + "&EndDate=" + today + "&EddyEffect=true"},
		{op: "POST /Interactions", body: jsonBody(map[string]any{"startDate": "2025-10-01", "endDate": "2025-10-02"})},
		{op: "GET /Interactions/{AmdID}", target: "/Interactions/00000000-0000-0000-0000-000000000000"},
		{op: "GET /Receipts", target: "/Receipts?StartDate=" + today + "&EndDate=" + today},
		{op: "GET /scim/v2/ResourceTypes/{ResourceTypeId}", target: "/scim/v2/ResourceTypes/Nothing", provisioning: true},
		{op: "POST /scim/v2/Users", provisioning: true, body: []byte(`{"schemas":["urn:ietf:params:scim:schemas:core:2.0:User"],"name":{"givenName":"N","familyName":"M"}}`)},
		{op: "POST /scim/v2/Users", provisioning: true, body: []byte(`{"schemas":["urn:ietf:params:scim:schemas:core:2.0:User"],"userName":"jsmith",
			"name":{"givenName":"Jo","familyName":"Smith"},"emails":[{"value":"jsmith2@example.com"}]}`)},
		{op: "PUT /scim/v2/Users/{UserId}", target: "/scim/v2/Users/" + scimUser, provisioning: true, body: []byte(`{"schemas":["urn:ietf:params:scim:schemas:core:2.0:User"],"userName":" "}`)},
		{op: "PATCH /scim/v2/Users/{UserId}", target: "/scim/v2/Users/" + scimUser, provisioning: true, body: []byte(`{"schemas":["urn:ietf:params:scim:api:messages:2.0:PatchOp"],
			"operations":[{"op":"replace","path":"emails[value co \"x\"].value","value":"y"}]}`)},
		{op: "DELETE /scim/v2/Users/{UserId}", target: "/scim/v2/Users/" + scimUser, provisioning: true},
		{op: "GET /Receipts", target: "/Receipts?StartDate=" + today + "&EndDate=" + today + "&Status=FailedToProcess&DateReference=EvaluationCompleteDate"},
		{op: "GET /UserHierarchy/{UserId}/{HierarchyId}", target: "/UserHierarchy/" + users[0].ID + "/" + nodes[0].ID}, // no access there now
		{op: "GET /UserHierarchy/{UserId}/All", target: "/UserHierarchy/nobody/All"},
		{op: "PUT /UserHierarchy/{UserId}/{HierarchyId}", target: "/UserHierarchy/" + users[0].ID + "/" + nodes[0].ID,
			body: jsonBody(map[string]any{"accessLevel": "Owner", "permissions": []string{"Audio"}})},
		{op: "PUT /UserHierarchy/{UserId}/{HierarchyId}", target: "/UserHierarchy/" + users[0].ID + "/00000000-0000-0000-0000-000000000000",
			body: jsonBody(map[string]any{"accessLevel": "View", "permissions": []string{"Audio"}})},
	}

	called := map[string]bool{}
	validated, conforming := 0, 0
	for _, call := range calls {
		called[call.op] = true
		method, path, _ := strings.Cut(call.op, " ")
		if call.target == "" {
			call.target = path
		}
		var status int
		var body []byte
		var header http.Header
		switch call.op {
		case "POST /Media/Upload":
			status, body, header = c.uploadRaw("/Media/Upload", "conformance/one-more.tar", "Chat", tarOf(map[string]string{"x.json": `{"messages":[{"participant":"Customer","text":"Hi"}]}`}), nil)
		case "POST /TextMedia/Upload":
			status, body, header = c.uploadRaw("/TextMedia/Upload", "chat.json", "", []byte(`{"messages":[{"participant":"Customer","text":"Hi"}]}`), map[string]any{"ClientCallId": "conformance-text"})
		default:
			ctype := ""
			if call.body != nil {
				ctype = "application/json"
			}
			client := c
			switch {
			case call.anonymous:
				client = &apiClient{t: t, base: c.base}
			case call.provisioning:
				client = provisioner
			}
			status, body, header = client.send(method, call.target, call.body, ctype)
		}
		validated++
		t.Logf("%s %s → %d", method, call.target, status)
		req, _ := http.NewRequest(method, c.base+call.target, bytes.NewReader(call.body))
		if call.body != nil {
			req.Header.Set("Content-Type", "application/json")
		}
		if err := conformsTo(router, req, call.op, status, header, body); err != nil {
			t.Errorf("%s %s → %d does not conform:\n%s\nbody: %.300s", method, call.target, status, brief(err), body)
			continue
		}
		conforming++
	}
	operations := 0
	for path, item := range doc.Paths.Map() {
		for method := range item.Operations() {
			operations++
			op := method + " " + path
			if !called[op] && !notServed[op] {
				t.Errorf("the vendor's operation %s is not called by the test", op)
			}
		}
	}
	t.Logf("conformance: %d of the document's %d operations called", len(called), operations)
	t.Logf("conformance: %d responses validated, %d conforming", validated, conforming)

	// The chosen id, everywhere a conversation id goes in or out.
	var transcript struct{ ConversationID string }
	c.getJSON("/Conversations/Transcriptions/"+chosenID, &transcript)
	var byID []struct{ ID, ConversationID string }
	c.getJSON("/ModelResults/Conversation?conversationIds="+chosenID+"&modelIds="+models, &byID)
	if transcript.ConversationID != chosenID || len(byID) != 1 || byID[0].ID != chosenID || byID[0].ConversationID != chosenID {
		t.Errorf("by its chosen id: transcript %+v, model results %+v", transcript, byID)
	}
	walked := map[string][]string{}
	for name, page := range map[string]string{
		"/Metadata":               "/Metadata?StartDate=" + today + "&PageSize=7",
		"/ModelResults":           "/ModelResults?startDate=" + today + "&pageSize=7&modelIds=" + models,
		"/Conversations/Insights": "/Conversations/Insights?StartDate=" + week + "&EndDate=" + today + "&PageSize=7",
	} {
		cursor := "&LastId="
		for last := ""; ; {
			var items []struct{ ID, ConversationID string }
			code, body := c.do("GET", page+cursor+last, nil, "")
			if code == 404 || code == 200 && string(body) == "[]" {
				break
			}
			if code != 200 || json.Unmarshal(body, &items) != nil {
				t.Fatalf("%s: %d %s", page+cursor+last, code, body)
			}
			for _, it := range items {
				walked[name] = append(walked[name], cmp.Or(it.ConversationID, it.ID))
			}
			if len(items) < 7 {
				break
			}
			last = walked[name][len(walked[name])-1]
		}
		ids := walked[name]
		at := slices.Index(ids, chosenID)
		if at < 0 || at == 0 || slices.IsSorted(ids) {
			t.Errorf("%s: the chosen id is at %d of %d: not in arrival order", name, at, len(ids))
		}
		if len(slices.Compact(slices.Sorted(slices.Values(ids)))) != len(ids) {
			t.Errorf("%s: a conversation came twice", name)
		}
	}

	// A chat whose agent is known names it, as a call does.
	var items []struct {
		ID, MediaType string
		AgentID       *string
		AgentName     *string
	}
	c.getJSON("/Metadata?MediaType=ProcessedChat&PageSize=1000", &items)
	named := 0
	for _, it := range items {
		switch {
		case it.AgentID != nil && it.AgentName == nil:
			t.Errorf("chat %s has agent %s but no agentName", it.ID, *it.AgentID)
		case it.AgentID != nil:
			named++
		}
	}
	if named == 0 {
		t.Error("no chat has an agent: the agentName check checked nothing")
	}

	// The paging headers go out spelled as the contract spells them (Go's
	// client would canonicalize them on reading: read the raw response).
	raw := rawResponse(t, addr, "GET /Conversations/Insights?StartDate="+week+"&EndDate="+today+"&PageSize=2 HTTP/1.1\r\nHost: x\r\n"+
		"Authorization: Bearer "+c.token+"\r\nConnection: close\r\n\r\n")
	for _, h := range []string{"\r\nX-Next-LastId: ", "\r\nX-Has-More: true", "\r\nX-Total-Records: "} {
		if !strings.Contains(raw, h) {
			t.Errorf("the Insights response lacks %q:\n%.600s", strings.TrimSpace(h), raw)
		}
	}
}

// rawResponse sends a raw HTTP request and returns the raw response.
func rawResponse(t *testing.T, addr, request string) string {
	t.Helper()
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := io.WriteString(conn, request); err != nil {
		t.Fatal(err)
	}
	out, err := io.ReadAll(conn)
	if err != nil {
		t.Fatal(err)
	}
	return string(out)
}

// conformsTo validates one response against the document, after taking
// out the operation's listed extensions.
func conformsTo(router routers.Router, req *http.Request, op string, status int, header http.Header, body []byte) error {
	route, params, err := router.FindRoute(req)
	if err != nil {
		return fmt.Errorf("no operation of the document: %w", err)
	}
	if got := route.Method + " " + route.Path; got != op {
		return fmt.Errorf("the request reached %s, not %s", got, op)
	}
	// A request answered 2xx must be one the document allows: the test
	// speaks as a client generated from it would.
	if _, unusable := unusableRequestSchema[op]; !unusable && (status < 300 && req.Header.Get("Content-Type") != "" || status < 300 && req.Method == "GET") {
		in := &openapi3filter.RequestValidationInput{Request: req, PathParams: params, Route: route,
			Options: &openapi3filter.Options{AuthenticationFunc: openapi3filter.NoopAuthenticationFunc, MultiError: true}}
		if err := openapi3filter.ValidateRequest(context.Background(), in); err != nil {
			return fmt.Errorf("the test's request is not one the document allows: %w", err)
		}
	}
	_, extra := extraStatuses[op][status]
	if _, ok := anyOperation[status]; ok || extra {
		if ctype := header.Get("Content-Type"); ctype != "application/problem+json" {
			return fmt.Errorf("a %d answered %q, not a problem body", status, ctype)
		}
		return nil
	}
	if strings.Contains(op, " /scim/") && status >= 400 {
		return scimError(status, header, body)
	}
	if status == http.StatusNoContent { // RFC 9110 §15.3.5: no content, whatever the document's 204 declares
		if _, declared := route.Operation.Responses.Map()[strconv.Itoa(status)]; !declared || len(body) > 0 {
			return fmt.Errorf("a 204 the document does not declare, or with a body (%d bytes)", len(body))
		}
		return nil
	}
	if paths := extensions[op]; len(paths) > 0 && len(body) > 0 {
		var v any
		if err := json.Unmarshal(body, &v); err != nil {
			return fmt.Errorf("not JSON: %w", err)
		}
		for _, p := range paths {
			removeMember(v, strings.Split(p, "."))
		}
		body, _ = json.Marshal(v)
	}
	if _, other := otherMediaType[op]; other && status < 300 {
		header = header.Clone()
		header.Set("Content-Type", "application/json")
	}
	validate := func(body []byte) error {
		in := &openapi3filter.ResponseValidationInput{
			RequestValidationInput: &openapi3filter.RequestValidationInput{Request: req, PathParams: params, Route: route},
			Status:                 status,
			Header:                 header,
			Body:                   io.NopCloser(bytes.NewReader(body)),
			Options:                &openapi3filter.Options{IncludeResponseStatus: true, MultiError: true},
		}
		return openapi3filter.ValidateResponse(context.Background(), in)
	}
	if declaredOneListed[op] && status == http.StatusOK {
		var items []json.RawMessage
		if err := json.Unmarshal(body, &items); err != nil {
			return fmt.Errorf("not a list: %w", err)
		}
		for i, item := range items {
			if err := validate(item); err != nil {
				return fmt.Errorf("item %d: %w", i, err)
			}
		}
		return nil
	}
	return validate(body)
}

// removeMember deletes the member at path from every object v holds
// there, walking through arrays.
func removeMember(v any, path []string) {
	switch x := v.(type) {
	case []any:
		for _, item := range x {
			removeMember(item, path)
		}
	case map[string]any:
		if len(path) == 1 {
			delete(x, path[0])
			return
		}
		if child, ok := x[path[0]]; ok {
			removeMember(child, path[1:])
		}
	}
}

// apiClient calls the test's server with a token.
type apiClient struct {
	t     *testing.T
	base  string
	token string
}

func (c *apiClient) login(id, secret string) { c.loginScope(id, secret, "") }

// loginScope gets a token with a scope ("": the default).
func (c *apiClient) loginScope(id, secret, scope string) {
	form := url.Values{"grant_type": {"client_credentials"}, "client_id": {id}, "client_secret": {secret}}
	if scope != "" {
		form.Set("scope", scope)
	}
	resp, err := http.PostForm(c.base+"/connect/token", form)
	if err != nil {
		c.t.Fatal(err)
	}
	defer resp.Body.Close()
	var tok struct {
		AccessToken string `json:"access_token"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&tok); err != nil || tok.AccessToken == "" {
		c.t.Fatalf("token: %d %v", resp.StatusCode, err)
	}
	c.token = tok.AccessToken
}

func (c *apiClient) send(method, target string, body []byte, ctype string) (int, []byte, http.Header) {
	c.t.Helper()
	req, err := http.NewRequest(method, c.base+target, bytes.NewReader(body))
	if err != nil {
		c.t.Fatal(err)
	}
	if c.token != "" {
		req.Header.Set("Authorization", "Bearer "+c.token)
	}
	if ctype != "" {
		req.Header.Set("Content-Type", ctype)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		c.t.Fatal(err)
	}
	defer resp.Body.Close()
	out, err := io.ReadAll(resp.Body)
	if err != nil {
		c.t.Fatal(err)
	}
	return resp.StatusCode, out, resp.Header
}

func (c *apiClient) do(method, target string, body []byte, ctype string) (int, []byte) {
	c.t.Helper()
	code, out, _ := c.send(method, target, body, ctype)
	return code, out
}

func (c *apiClient) getJSON(target string, v any) {
	c.t.Helper()
	code, body := c.do("GET", target, nil, "")
	if code != 200 {
		c.t.Fatalf("GET %s: %d %s", target, code, body)
	}
	if err := json.Unmarshal(body, v); err != nil {
		c.t.Fatalf("GET %s: %v", target, err)
	}
}

// uploadRaw sends a multipart upload: metadata with FileName and
// UploadType (when given) plus extra keys.
func (c *apiClient) uploadRaw(path, fileName, uploadType string, file []byte, extra map[string]any) (int, []byte, http.Header) {
	c.t.Helper()
	meta := map[string]any{}
	if uploadType != "" {
		meta["FileName"], meta["UploadType"] = fileName, uploadType
	}
	for k, v := range extra {
		meta[k] = v
	}
	metaJSON, _ := json.Marshal(meta)
	var buf bytes.Buffer
	w := multipart.NewWriter(&buf)
	part, _ := w.CreateFormFile("file", filepath.Base(fileName))
	part.Write(file)
	w.WriteField("metadata", string(metaJSON))
	w.Close()
	return c.send("POST", path, buf.Bytes(), w.FormDataContentType())
}

func (c *apiClient) upload(path, fileName, uploadType string, file []byte) {
	c.t.Helper()
	if code, body, _ := c.uploadRaw(path, fileName, uploadType, file, nil); code != 200 {
		c.t.Fatalf("upload %s: %d %s", fileName, code, body)
	}
}

// tarOf is a tar archive of the named files, in name order.
func tarOf(files map[string]string) []byte {
	names := make([]string, 0, len(files))
	for n := range files {
		names = append(names, n)
	}
	sort.Strings(names)
	var buf bytes.Buffer
	w := tar.NewWriter(&buf)
	for _, n := range names {
		w.WriteHeader(&tar.Header{Name: n, Mode: 0o644, Size: int64(len(files[n])), Typeflag: tar.TypeReg})
		w.Write([]byte(files[n]))
	}
	w.Close()
	return buf.Bytes()
}

// brief lists a validation error's failures one a line (where in the
// body, and why; array items as *), without the schemas kin-openapi
// prints.
func brief(err error) string {
	var lines []string
	var walk func(error)
	walk = func(err error) {
		var multi openapi3.MultiError
		var schemaErr *openapi3.SchemaError
		var respErr *openapi3filter.ResponseError
		switch {
		case errors.As(err, &multi):
			for _, e := range multi {
				walk(e)
			}
		case errors.As(err, &schemaErr):
			if inner, ok := schemaErr.Origin.(openapi3.MultiError); ok {
				walk(inner)
				return
			}
			where := schemaErr.JSONPointer()
			for i, seg := range where {
				if _, err := strconv.Atoi(seg); err == nil {
					where[i] = "*" // one line for every item of an array
				}
			}
			lines = append(lines, "/"+strings.Join(where, "/")+": "+schemaErr.Reason)
		case errors.As(err, &respErr) && respErr.Err != nil && respErr.Err != err:
			walk(respErr.Err)
		default:
			lines = append(lines, err.Error())
		}
	}
	walk(err)
	sort.Strings(lines)
	return strings.Join(slices.Compact(lines), "\n")
}

// evaluate gives the organization a form and a completed evaluation of a
// conversation by an analyst, and returns its evaluationNumber (as text)
// less one: a cursor that includes it.
func evaluate(t *testing.T, c *apiClient, conversation, analyst string) string {
	t.Helper()
	code, body := c.do("POST", "/Evaluations/Forms", []byte(`{"name":"Conformance","customerTypes":["New"],"modules":[{"name":"Opening","questions":[
		{"questionText":"Greeted?","required":true,"weight":2,"tags":[{"value":"Yes","scoredValue":1},{"value":"No","scoredValue":0}]},
		{"questionText":"Notes","type":"FillIn"}]}]}`), "application/json")
	var form struct {
		ID      string
		Modules []struct{ Questions []struct{ ID string } }
	}
	if code != 201 || json.Unmarshal(body, &form) != nil {
		t.Fatalf("form: %d %s", code, body)
	}
	assign, _ := json.Marshal(map[string]any{"formId": form.ID, "conversationId": conversation, "analyst": analyst})
	code, body = c.do("POST", "/Evaluations", assign, "application/json")
	var ev struct {
		ID               string
		EvaluationNumber int
	}
	if code != 201 || json.Unmarshal(body, &ev) != nil {
		t.Fatalf("assign: %d %s", code, body)
	}
	q := form.Modules[0].Questions
	answers, _ := json.Marshal(map[string]any{"callSummary": "Greeting check.", "customerType": "New", "answers": []map[string]any{
		{"questionId": q[0].ID, "tagIds": []string{"Yes"}, "note": "Warm."}, {"questionId": q[1].ID, "fillInAnswerValue": "Fine."}}})
	for _, step := range []struct {
		method, path string
		body         []byte
	}{
		{"PUT", "/Evaluations/" + ev.ID + "/Answers", answers}, {"POST", "/Evaluations/" + ev.ID + "/Submit", nil},
	} {
		if code, body := c.do(step.method, step.path, step.body, "application/json"); code != 200 {
			t.Fatalf("%s %s: %d %s", step.method, step.path, code, body)
		}
	}
	if code, body := c.do("GET", "/Evaluations/Modules", nil, ""); code != 200 || !strings.Contains(string(body), `"tagValue":"Yes"`) {
		t.Fatalf("the evaluation is not listed with its answer: %d %s", code, body)
	}
	// A review workflow over it, one level of two done.
	code, body = c.do("POST", "/Workflows/Templates", []byte(`{"name":"Reconsideration","levels":[{"assignees":[]},{"assignees":[]}],
		"bossModule":{"name":"Calibration","questions":[{"questionText":"Fair?","answers":["No","Yes"]}]}}`), "application/json")
	var template struct{ ID string }
	if code != 201 || json.Unmarshal(body, &template) != nil {
		t.Fatalf("workflow template: %d %s", code, body)
	}
	start, _ := json.Marshal(map[string]any{"templateId": template.ID, "evaluationId": ev.ID})
	code, body = c.do("POST", "/Workflows", start, "application/json")
	var workflow struct{ WorkflowID string }
	if code != 201 || json.Unmarshal(body, &workflow) != nil {
		t.Fatalf("workflow: %d %s", code, body)
	}
	if code, body := c.do("POST", "/Workflows/"+workflow.WorkflowID+"/Advance", []byte(`{"completer":"`+analyst+`","notes":"Looks right."}`),
		"application/json"); code != 200 {
		t.Fatalf("advance: %d %s", code, body)
	}
	return strconv.Itoa(ev.EvaluationNumber - 1)
}

// provisionUser creates a user through SCIM (RFC 7644 §3.3's example with
// a work email) and returns its id.
func provisionUser(t *testing.T, c *apiClient) string {
	t.Helper()
	code, body := c.do("POST", "/scim/v2/Users", []byte(`{"schemas":["urn:ietf:params:scim:schemas:core:2.0:User"],"userName":"bjensen",
		"externalId":"bjensen","name":{"formatted":"Ms. Barbara J Jensen III","familyName":"Jensen","givenName":"Barbara"},
		"emails":[{"value":"bjensen@example.com","type":"work","primary":true}]}`), "application/scim+json")
	var user struct{ ID string }
	if code != 201 || json.Unmarshal(body, &user) != nil || user.ID == "" {
		t.Fatalf("SCIM user: %d %s", code, body)
	}
	return user.ID
}

// scimError checks a SCIM error answer as RFC 7644 §3.12 defines it (the
// document declares some as strings, some not at all: an unknown user is
// 404 on every operation, as the RFC says): a JSON object of the Error
// schema, with its status.
func scimError(status int, header http.Header, body []byte) error {
	var e struct {
		Schemas []string
		Status  string
		Detail  string
	}
	if ctype := header.Get("Content-Type"); ctype != "application/scim+json" {
		return fmt.Errorf("a SCIM %d answered %q", status, ctype)
	}
	if err := json.Unmarshal(body, &e); err != nil || !slices.Contains(e.Schemas, "urn:ietf:params:scim:api:messages:2.0:Error") ||
		e.Status != strconv.Itoa(status) || e.Detail == "" {
		return fmt.Errorf("not an RFC 7644 error: %s", body)
	}
	return nil
}
