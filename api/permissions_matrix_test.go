package api

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"html"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/earshot/earshot/warehouse/catalog"
)

// The permission matrix (CONTRACT §11): every standard role at every access
// level drives every action through every door that offers it — the API
// acting for the user (X-Earshot-User), the console signed in as the user,
// and SCIM acting for the user — and each door must allow or refuse as the
// contract's table says, refuse with the same sentence, and change nothing
// when it refuses. (The admin socket and the CLI act as the organization
// itself, which every action allows.)
//
// The expectations are written out here from the contract, not read from
// the code under test.
func TestPermissionMatrix(t *testing.T) {
	t.Parallel()
	e := newTestEnv(t, Options{})
	tok := e.token(t)
	f := buildOrg(t, e, tok, "") // North America > Boston > Billing; ann is a Supervisor
	classifier := mustStatus(t, e.jsonReq("POST", "/Conversations/Classifiers", tok, classifierBody("Order", "Classifier", "Topics",
		`{"groups":[{"rules":[{"phrases":["order"]}]}]}`)), http.StatusCreated).id(t)
	conv := mustStatus(t, e.upload("/TextMedia/Upload", tok, meta("HierarchyId", f.team, "ClientCallId", "original"),
		file("c.json", `{"messages":[{"participant":"Customer","text":"Where is my order?"}]}`)), 200).id(t)
	e.runIngest(t)
	formID := mustStatus(t, e.jsonReq("POST", "/Evaluations/Forms", tok, `{"name":"Matrix","modules":[{"name":"Opening","questions":[
		{"questionText":"Greeted?","weight":1,"tags":[{"value":"Yes","scoredValue":1},{"value":"No","scoredValue":0}]}]}]}`), http.StatusCreated).id(t)
	var form formView
	json.Unmarshal(mustStatus(t, e.jsonReq("GET", "/Evaluations/Forms/"+formID, tok, nil), 200).Body.Bytes(), &form)
	question := form.Modules[0].Questions[0].ID

	type rule struct {
		roles []string // the roles whose permissions allow it
		level string   // the least access on the conversation's node ("": none needed)
	}
	// From CONTRACT §11 and the standard roles of CONTRACT §9.
	table := map[string]rule{
		"read the conversation":             {[]string{"Administrator", "Analyst", "Supervisor", "Agent"}, "View"},
		"record a review":                   {[]string{"Administrator", "Supervisor"}, "Edit"},
		"change its metadata":               {[]string{"Administrator", "Supervisor"}, "Edit"},
		"answer an evaluation of its own":   {[]string{"Administrator", "Analyst", "Supervisor"}, "Edit"},
		"submit another's evaluation":       {[]string{"Administrator", "Supervisor"}, "Edit"},
		"change classifiers":                {[]string{"Administrator", "Analyst"}, ""},
		"manage evaluation forms":           {[]string{"Administrator", "Supervisor"}, ""},
		"query results of the conversation": {[]string{"Administrator", "Analyst", "Supervisor", "Agent"}, "View"},
		"change users":                      {[]string{"Administrator"}, ""},
	}
	levels := []string{"View", "Edit", "Manage"}
	allowed := func(action, role, level string) bool {
		r := table[action]
		if !slices.Contains(r.roles, role) {
			return false
		}
		// An administrator's role reaches the whole organization.
		return role == "Administrator" || r.level == "" || slices.Index(levels, level) >= slices.Index(levels, r.level)
	}

	// State that a refused request must leave as it was.
	count := func(query string, args ...any) int {
		var n int
		if err := e.sql.QueryRow(query, args...).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	internal := func(public string) string {
		ids, err := e.cat.Interactions.InternalIDs(context.Background(), e.org.ID, []string{public})
		if err != nil {
			t.Fatal(err)
		}
		if id, ok := ids[public]; ok {
			return id
		}
		return public
	}(conv)
	reviews := func() int { return count(`SELECT count(*) FROM result_reviews WHERE conversation_id = ?`, internal) }
	clientCallID := func() string {
		var v string
		e.sql.QueryRow(`SELECT coalesce(client_call_id, '') FROM interactions WHERE id = ?`, internal).Scan(&v)
		return v
	}
	evaluationStatus := func(id string) string {
		var v string
		e.sql.QueryRow(`SELECT status FROM evaluations WHERE id = ?`, id).Scan(&v)
		return v
	}
	classifiers := func() int { return count(`SELECT count(*) FROM classifiers WHERE org_id = ?`, e.org.ID) }
	forms := func() int { return count(`SELECT count(*) FROM evaluation_forms WHERE org_id = ?`, e.org.ID) }

	type door struct {
		name string
		// do sends the request as the user; it answers the status and the
		// refusal's sentence ("" when none).
		do func(u matrixUser, method, target string, body any) (int, string)
	}
	api := door{"API", func(u matrixUser, method, target string, body any) (int, string) {
		h := bearer(tok)
		h.Set("X-Earshot-User", u.name)
		var data []byte
		if body != nil {
			data, _ = json.Marshal(body)
			h.Set("Content-Type", "application/json")
		}
		r := e.do(method, target, strings.NewReader(string(data)), h)
		detail := ""
		if r.Code == http.StatusForbidden {
			detail, _ = r.json(t)["detail"].(string)
		}
		return r.Code, detail
	}}
	console := door{"console", func(u matrixUser, method, target string, body any) (int, string) {
		h := http.Header{"Cookie": {u.session.String()}}
		var form url.Values
		if body != nil {
			form = body.(url.Values)
			form.Set("csrf", u.csrf)
			h.Set("Content-Type", "application/x-www-form-urlencoded")
		}
		r := e.do(method, target, strings.NewReader(form.Encode()), h)
		detail := ""
		if r.Code == http.StatusForbidden {
			detail = html.UnescapeString(r.Body.String())
		}
		return r.Code, detail
	}}

	scimToken := e.scimToken(t)
	scim := door{"SCIM", func(u matrixUser, method, target string, body any) (int, string) {
		data, _ := json.Marshal(body)
		r := e.scim(t, scimToken, method, target, string(data), "X-Earshot-User", u.name)
		detail := ""
		if r.Code == http.StatusForbidden {
			detail, _ = r.json(t)["detail"].(string)
		}
		return r.Code, detail
	}}
	users := func() int { return count(`SELECT count(*) FROM users WHERE org_id = ?`, e.org.ID) }

	type attempt struct {
		door    door
		method  string
		target  string
		body    any
		ok      int // the status of an allowed request
		changed func() bool
	}
	// Each action as each door offers it; prepare makes what one attempt
	// of the user acts on, so that an allowed attempt leaves nothing the
	// next one sees.
	actions := []struct {
		name     string
		attempts func(u matrixUser, n int) []attempt
	}{
		{"read the conversation", func(u matrixUser, n int) []attempt {
			return []attempt{
				{api, "GET", "/Interactions/" + conv, nil, 200, nil},
				{console, "GET", "/console/conversations/" + conv, nil, 200, nil},
			}
		}},
		{"query results of the conversation", func(u matrixUser, n int) []attempt {
			return []attempt{{api, "GET", "/ModelResults/Conversation?modelIds=" + classifier + "&conversationIds=" + conv, nil, 200, nil}}
		}},
		{"record a review", func(u matrixUser, n int) []attempt {
			before := reviews()
			changed := func() bool { return reviews() != before }
			return []attempt{
				{api, "POST", "/ModelResults/Reviews", map[string]any{"conversationId": conv, "eventType": "HumanReview", "reviewer": u.name,
					"modelResults": []map[string]any{{"modelId": classifier, "result": false}}}, 200, changed},
				{console, "POST", "/console/conversations/" + conv + "/review", url.Values{"result-" + classifier: {"no"}}, http.StatusSeeOther, changed},
			}
		}},
		{"change its metadata", func(u matrixUser, n int) []attempt {
			before := clientCallID()
			return []attempt{{api, "PATCH", "/Metadata/" + conv, map[string]any{"clientCallId": fmt.Sprintf("%s-%d", u.name, n)}, 200,
				func() bool { return clientCallID() != before }}}
		}},
		{"answer an evaluation of its own", func(u matrixUser, n int) []attempt {
			viaAPI, viaConsole := e.assignForMatrix(t, tok, formID, conv, u.name), e.assignForMatrix(t, tok, formID, conv, u.name)
			return []attempt{
				{api, "PUT", "/Evaluations/" + viaAPI + "/Answers", map[string]any{"answers": []map[string]any{{"questionId": question, "tagIds": []string{"Yes"}}}}, 200,
					func() bool { return evaluationStatus(viaAPI) != catalog.EvaluationNotStarted }},
				{console, "POST", "/console/evaluations/" + viaConsole, url.Values{"q-" + question: {"Yes"}, "action": {"save"}}, http.StatusSeeOther,
					func() bool { return evaluationStatus(viaConsole) != catalog.EvaluationNotStarted }},
			}
		}},
		{"submit another's evaluation", func(u matrixUser, n int) []attempt {
			viaAPI, viaConsole := e.assignForMatrix(t, tok, formID, conv, "raj"), e.assignForMatrix(t, tok, formID, conv, "raj")
			return []attempt{
				{api, "POST", "/Evaluations/" + viaAPI + "/Submit", nil, 200, func() bool { return evaluationStatus(viaAPI) != catalog.EvaluationNotStarted }},
				{console, "POST", "/console/evaluations/" + viaConsole, url.Values{"q-" + question: {"Yes"}, "action": {"submit"}}, http.StatusSeeOther,
					func() bool { return evaluationStatus(viaConsole) != catalog.EvaluationNotStarted }},
			}
		}},
		{"change classifiers", func(u matrixUser, n int) []attempt {
			before := classifiers()
			changed := func() bool { return classifiers() != before }
			name := fmt.Sprintf("Rule %s %d", u.name, n)
			return []attempt{
				{api, "POST", "/Conversations/Classifiers", json.RawMessage(classifierBody(name+" api", "Classifier", "Topics",
					`{"groups":[{"rules":[{"phrases":["refund"]}]}]}`)), http.StatusCreated, changed},
				{console, "POST", "/console/classifiers/new", url.Values{"name": {name + " console"}, "category": {"Topics"},
					"definition": {`{"groups":[{"rules":[{"phrases":["refund"]}]}]}`}}, http.StatusSeeOther, changed},
			}
		}},
		{"change users", func(u matrixUser, n int) []attempt {
			before := users()
			changed := func() bool { return users() != before }
			name := fmt.Sprintf("new-%s-%d", u.name, n)
			return []attempt{
				{api, "POST", "/User", map[string]any{"firstName": "New", "lastName": "User", "userName": name + "-api", "email": name + "-api@example.com"},
					200, changed},
				{scim, "POST", "/scim/v2/Users", map[string]any{"schemas": []string{"urn:ietf:params:scim:schemas:core:2.0:User"}, "userName": name + "-scim",
					"name": map[string]any{"givenName": "New", "familyName": "User"}, "emails": []map[string]any{{"value": name + "-scim@example.com", "primary": true}}},
					http.StatusCreated, changed},
			}
		}},
		{"manage evaluation forms", func(u matrixUser, n int) []attempt {
			before := forms()
			return []attempt{{api, "POST", "/Evaluations/Forms", json.RawMessage(fmt.Sprintf(`{"name":"Form %s %d","modules":[{"name":"M","questions":[
				{"questionText":"Q?","weight":1,"tags":[{"value":"Yes","scoredValue":1}]}]}]}`, u.name, n)), http.StatusCreated,
				func() bool { return forms() != before }}}
		}},
	}

	counted := map[string]int{}
	n := 0
	for _, role := range []string{"Administrator", "Analyst", "Supervisor", "Agent"} {
		for _, level := range levels {
			u := e.matrixUser(t, tok, role, level, f.site)
			// The conversation's page offers the review form to whom may record one.
			page := e.do("GET", "/console/conversations/"+conv, nil, http.Header{"Cookie": {u.session.String()}})
			if offered := strings.Contains(page.Body.String(), "Record review"); offered != allowed("record a review", role, level) {
				t.Errorf("%s with %s: the conversation's page offers a review: %v", role, level, offered)
			}
			for _, act := range actions {
				n++
				want := allowed(act.name, role, level)
				apiRefusal := ""
				for _, a := range act.attempts(u, n) {
					code, detail := a.door.do(u, a.method, a.target, a.body)
					counted[a.door.name]++
					where := fmt.Sprintf("%s with %s on Boston, %s via the %s (%s %s)", role, level, act.name, a.door.name, a.method, a.target)
					switch {
					case want && code != a.ok:
						t.Errorf("%s: %d, want %d (allowed)", where, code, a.ok)
					case !want && code != http.StatusForbidden:
						t.Errorf("%s: %d, want 403 (refused)", where, code)
					case !want && a.door.name == "API":
						if apiRefusal = detail; !strings.HasPrefix(detail, "Your ") && !strings.HasPrefix(detail, "This work") {
							t.Errorf("%s: the refusal gives no reason: %q", where, detail)
						}
					case !want && (apiRefusal == "" || !strings.Contains(detail, apiRefusal)):
						t.Errorf("%s: the %s does not say the API's sentence %q: %s", where, a.door.name, apiRefusal, detail)
					}
					if a.changed != nil && a.changed() != want {
						t.Errorf("%s: changed %v, want %v", where, a.changed(), want)
					}
				}
			}
		}
	}
	t.Logf("permission matrix: 4 roles × 3 access levels × %d actions; %d requests through the API, %d through the console, %d through SCIM",
		len(actions), counted["API"], counted["console"], counted["SCIM"])
}

// matrixUser is a user of one role with one access level on a node,
// signed in to the console.
type matrixUser struct {
	name    string
	session *http.Cookie
	csrf    string
}

// matrixUser makes a user of the role with the access level (Chat) on the
// node, and a console session for it.
func (e *testEnv) matrixUser(t *testing.T, tok, role, level, node string) matrixUser {
	t.Helper()
	name := strings.ToLower(role + "-" + level)
	id := mustStatus(t, e.jsonReq("POST", "/User", tok, map[string]any{"firstName": role, "lastName": level, "userName": name,
		"email": name + "@example.com", "roleName": role}), 200).id(t)
	mustStatus(t, e.jsonReq("PUT", "/UserHierarchy/"+id+"/"+node, tok, map[string]any{"accessLevel": level, "permissions": []string{"Chat"}}), 200)
	token, csrf := "session-"+name, "csrf-"+name
	now := time.Now().UTC()
	sum := sha256.Sum256([]byte(token))
	if err := e.cat.People.StartSession(context.Background(), catalog.Session{TokenHash: hex.EncodeToString(sum[:]), OrgID: e.org.ID, UserID: id, CSRF: csrf,
		CreatedOn: now, ExpiresOn: now.Add(time.Hour)}); err != nil {
		t.Fatal(err)
	}
	return matrixUser{name: name, session: &http.Cookie{Name: "earshot_session", Value: token}, csrf: csrf}
}

// assignForMatrix assigns a NotStarted evaluation of the conversation to
// the analyst.
func (e *testEnv) assignForMatrix(t *testing.T, tok, form, conversation, analyst string) string {
	t.Helper()
	return mustStatus(t, e.jsonReq("POST", "/Evaluations", tok, map[string]any{"formId": form, "conversationId": conversation,
		"analyst": analyst}), http.StatusCreated).id(t)
}
