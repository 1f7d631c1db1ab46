package api

import (
	"context"
	"encoding/json"
	"regexp"
	"strings"
	"testing"

	"github.com/google/uuid"

	"github.com/earshot/earshot/api/oauth"
)

// jsonReq sends a JSON body with the caller's token.
func (e *testEnv) jsonReq(method, path, token string, body any) response {
	var data []byte
	switch b := body.(type) {
	case nil:
	case string:
		data = []byte(b)
	default:
		data, _ = json.Marshal(b)
	}
	h := bearer(token)
	h.Set("Content-Type", "application/json")
	return e.do(method, path, strings.NewReader(string(data)), h)
}

func (r response) id(t *testing.T) string {
	t.Helper()
	id, _ := r.json(t)["id"].(string)
	if id == "" {
		t.Fatalf("no id in %d %s", r.Code, r.Body)
	}
	return id
}

func mustStatus(t *testing.T, r response, status int) response {
	t.Helper()
	if r.Code != status {
		t.Fatalf("status %d, want %d: %s", r.Code, status, r.Body)
	}
	return r
}

// orgFixture builds users, a three-level hierarchy and agents for the
// environment's organization.
type orgFixture struct {
	user, user2, region, site, team, agent string
}

func buildOrg(t *testing.T, e *testEnv, token, prefix string) orgFixture {
	t.Helper()
	var f orgFixture
	f.user = mustStatus(t, e.jsonReq("POST", "/User", token, map[string]any{
		"FirstName": "Ann", "lastName": "Lee", "userName": prefix + "ann", "email": prefix + "ann@example.com",
		"phoneNumber": "+1 555 0100", "roleName": "Supervisor"}), 200).id(t)
	f.user2 = mustStatus(t, e.jsonReq("POST", "/User", token, map[string]any{
		"firstName": "Raj", "lastName": "Patel", "userName": prefix + "raj", "email": prefix + "raj@example.com"}), 200).id(t)
	f.region = mustStatus(t, e.jsonReq("POST", "/Hierarchy", token, map[string]any{
		"name": "North America", "category": "Region", "code": prefix + "NA", "hierarchyCodes": []string{prefix + "NORTH"},
		"managerContactsUserIds": []string{f.user}}), 200).id(t)
	f.site = mustStatus(t, e.jsonReq("POST", "/Hierarchy", token, map[string]any{
		"name": "Boston", "parentId": f.region, "code": prefix + "BOS", "escalationContactsUserIds": []string{f.user, f.user2}}), 200).id(t)
	f.team = mustStatus(t, e.jsonReq("POST", "/Hierarchy", token, map[string]any{
		"name": "Billing", "parentId": f.site, "code": prefix + "BOS-BILL"}), 200).id(t)
	f.agent = mustStatus(t, e.jsonReq("POST", "/Agent", token, map[string]any{
		"firstName": "bo", "lastName": "Ng", "agentEmail": prefix + "bo@example.com", "agentCode": prefix + "A100",
		"osms": []string{f.team}, "userId": f.user2, "managerId": f.user, "startDate": "2025-01-15"}), 200).id(t)
	return f
}

func TestOrganizationDataShapes(t *testing.T) {
	t.Parallel()
	e := newTestEnv(t, Options{})
	tok := e.token(t)
	f := buildOrg(t, e, tok, "")

	golden(t, "user", mustStatus(t, e.jsonReq("GET", "/User/"+f.user2, tok, nil), 200).Body.Bytes())
	golden(t, "user_by_name", mustStatus(t, e.jsonReq("GET", "/User?UserName=ANN", tok, nil), 200).Body.Bytes())
	golden(t, "users", mustStatus(t, e.jsonReq("GET", "/User/All", tok, nil), 200).Body.Bytes())
	golden(t, "roles", mustStatus(t, e.jsonReq("GET", "/Roles/All?isactive=true", tok, nil), 200).Body.Bytes())
	golden(t, "hierarchy_tree", mustStatus(t, e.jsonReq("GET", "/Hierarchy/All", tok, nil), 200).Body.Bytes())
	golden(t, "hierarchy_flat", mustStatus(t, e.jsonReq("GET", "/Hierarchy", tok, nil), 200).Body.Bytes())
	golden(t, "agent", mustStatus(t, e.jsonReq("GET", "/Agent/"+f.agent, tok, nil), 200).Body.Bytes())
	golden(t, "agents", mustStatus(t, e.jsonReq("GET", "/Agent/All?IsActive=true", tok, nil), 200).Body.Bytes())

	// Updates.
	r := mustStatus(t, e.jsonReq("PUT", "/User/"+f.user2, tok, map[string]any{"roleName": "Analyst", "disabled": true}), 200)
	if u := r.json(t); u["roleName"] != "Analyst" || u["disabled"] != true || u["agentId"] != f.agent {
		t.Fatalf("user update: %v", u)
	}
	if users := e.jsonReq("GET", "/User/All?IsActive=true", tok, nil); strings.Contains(users.Body.String(), f.user2) {
		t.Fatal("disabled user listed as active")
	}
	r = mustStatus(t, e.jsonReq("PUT", "/Agent", tok, map[string]any{"id": f.agent, "userId": "remove", "osms": []string{f.site, f.region}, "isActive": false}), 200)
	golden(t, "agent_updated", r.Body.Bytes())
	if e.jsonReq("GET", "/Agent/All?IsActive=true", tok, nil).Code != 404 {
		t.Fatal("GET /Agent/All with no active agent is not 404")
	}
	r = mustStatus(t, e.jsonReq("PUT", "/Hierarchy/"+f.team, tok, map[string]any{"newParentId": "remove", "isActive": false, "hierarchyCodes": []string{"T1"}}), 200)
	golden(t, "node_updated", r.Body.Bytes())
	golden(t, "hierarchy_tree_active", mustStatus(t, e.jsonReq("GET", "/Hierarchy/All?IsActive=true", tok, nil), 200).Body.Bytes())
}

func TestOrganizationDataEmpty(t *testing.T) {
	t.Parallel()
	e := newTestEnv(t, Options{})
	tok := e.token(t)
	for _, path := range []string{"/Hierarchy/All", "/Agent/All"} {
		r := e.jsonReq("GET", path, tok, nil)
		if r.Code != 404 || r.Header().Get("Content-Type") != "application/problem+json" {
			t.Errorf("%s on an empty organization: %d", path, r.Code)
		}
	}
	if r := e.jsonReq("GET", "/User/All", tok, nil); r.Code != 200 || strings.TrimSpace(r.Body.String()) != "[]" {
		t.Errorf("GET /User/All empty: %d %s", r.Code, r.Body)
	}
}

func TestOrganizationDataBadInput(t *testing.T) {
	t.Parallel()
	e := newTestEnv(t, Options{})
	tok := e.token(t)
	f := buildOrg(t, e, tok, "")
	cases := []struct {
		name, method, path string
		body               any
		status             int
		field              string
	}{
		{"user missing fields", "POST", "/User", map[string]any{"firstName": "x"}, 400, "email"},
		{"user bad email", "POST", "/User", map[string]any{"firstName": "x", "lastName": "y", "userName": "z", "email": "Z <z@x.io>"}, 400, "email"},
		{"user name with space", "POST", "/User", map[string]any{"firstName": "x", "lastName": "y", "userName": "z z", "email": "z@x.io"}, 400, "userName"},
		{"user unknown role", "POST", "/User", map[string]any{"firstName": "x", "lastName": "y", "userName": "z", "email": "z@x.io", "roleName": "Wizard"}, 400, "roleName"},
		{"user duplicate name", "POST", "/User", map[string]any{"firstName": "x", "lastName": "y", "userName": "ANN", "email": "z@x.io"}, 400, "userName"},
		{"user duplicate email", "PUT", "/User/" + f.user2, map[string]any{"email": "ann@example.com"}, 400, "email"},
		{"user wrong type", "PUT", "/User/" + f.user2, map[string]any{"disabled": "sometimes"}, 400, "disabled"},
		{"user id not a GUID", "GET", "/User/123", nil, 400, "id"},
		{"user unknown", "GET", "/User/" + uuid.NewString(), nil, 404, ""},
		{"user by name missing", "GET", "/User", nil, 400, "UserName"},
		{"user by name unknown", "GET", "/User?username=nobody", nil, 404, ""},
		{"IsActive not a boolean", "GET", "/User/All?IsActive=maybe", nil, 400, "IsActive"},
		{"body not JSON", "POST", "/User", "{not json", 400, "body"},
		{"body an array", "POST", "/Agent", "[]", 400, "body"},
		{"node missing name", "POST", "/Hierarchy", map[string]any{"code": "X"}, 400, "name"},
		{"node duplicate code", "POST", "/Hierarchy", map[string]any{"name": "x", "code": "bos"}, 400, "code"},
		{"node code taken by extra code", "POST", "/Hierarchy", map[string]any{"name": "x", "hierarchyCodes": []string{"north"}}, 400, "hierarchyCodes"},
		{"node unknown parent", "POST", "/Hierarchy", map[string]any{"name": "x", "parentId": uuid.NewString()}, 400, "parentId"},
		{"node parent not a GUID", "POST", "/Hierarchy", map[string]any{"name": "x", "parentId": "top"}, 400, "parentId"},
		{"node unknown contact", "POST", "/Hierarchy", map[string]any{"name": "x", "managerContactsUserIds": []string{uuid.NewString()}}, 400, "managerContactsUserIds"},
		{"node move under itself", "PUT", "/Hierarchy/" + f.site, map[string]any{"newParentId": f.site}, 400, "newParentId"},
		{"node move under descendant (cycle)", "PUT", "/Hierarchy/" + f.region, map[string]any{"newParentId": f.team}, 400, "newParentId"},
		{"node parentId on update", "PUT", "/Hierarchy/" + f.team, map[string]any{"parentId": f.region}, 400, "parentId"},
		{"node unknown", "PUT", "/Hierarchy/" + uuid.NewString(), map[string]any{"name": "x"}, 404, ""},
		{"agent missing fields", "POST", "/Agent", map[string]any{"firstName": "x"}, 400, "agentEmail"},
		{"agent duplicate code", "POST", "/Agent", map[string]any{"firstName": "x", "lastName": "y", "agentEmail": "q@x.io", "agentCode": "a100"}, 400, "agentCode"},
		{"agent unknown user", "POST", "/Agent", map[string]any{"firstName": "x", "lastName": "y", "agentEmail": "q@x.io", "userId": uuid.NewString()}, 400, "userId"},
		{"agent user taken", "POST", "/Agent", map[string]any{"firstName": "x", "lastName": "y", "agentEmail": "q@x.io", "userId": f.user2}, 400, "userId"},
		{"agent unknown manager", "PUT", "/Agent/" + f.agent, map[string]any{"managerId": uuid.NewString()}, 400, "managerId"},
		{"agent unknown node", "PUT", "/Agent/" + f.agent, map[string]any{"osms": []string{uuid.NewString()}}, 400, "osms"},
		{"agent osms not GUIDs", "PUT", "/Agent/" + f.agent, map[string]any{"osms": []string{"east"}}, 400, "osms"},
		{"agent bad start date", "PUT", "/Agent/" + f.agent, map[string]any{"startDate": "15/01/2025"}, 400, "startDate"},
		{"agent put without id", "PUT", "/Agent", map[string]any{"firstName": "x"}, 400, "id"},
		{"agent unknown", "GET", "/Agent/" + uuid.NewString(), nil, 404, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := e.jsonReq(c.method, c.path, tok, c.body)
			if r.Code != c.status || r.Header().Get("Content-Type") != "application/problem+json" {
				t.Fatalf("got %d %s, want %d", r.Code, r.Body, c.status)
			}
			body := r.json(t)
			if detail, _ := body["detail"].(string); len(detail) < 10 {
				t.Errorf("no useful detail: %s", r.Body)
			}
			if c.field != "" {
				if errs, _ := body["errors"].(map[string]any); errs[c.field] == nil {
					t.Errorf("errors do not name %s: %s", c.field, r.Body)
				}
			}
		})
	}
	golden(t, "user_missing_fields", e.jsonReq("POST", "/User", tok, map[string]any{"firstName": "x"}).Body.Bytes())
}

var traceID = regexp.MustCompile(`"traceId":"[^"]*"`)

// Every endpoint tried with another organization's ids and codes answers
// exactly as it does for ids and codes that exist nowhere.
func TestTenancyIsolation(t *testing.T) {
	t.Parallel()
	e := newTestEnv(t, Options{})
	ctx := context.Background()
	tokA := e.token(t)
	a := buildOrg(t, e, tokA, "")

	orgB, err := e.cat.Orgs.CreateOrganization(ctx, "globex")
	if err != nil {
		t.Fatal(err)
	}
	tokB, _ := e.tokens.IssueForOperator(orgB.ID, oauth.Scope)
	b := buildOrg(t, e, tokB, "b-")

	unknown := uuid.NewString()
	type probe struct {
		method, path string
		body         func(id string) any
	}
	byID := []probe{
		{"GET", "/User/%s", nil},
		{"PUT", "/User/%s", func(string) any { return map[string]any{"firstName": "Mallory"} }},
		{"GET", "/Agent/%s", nil},
		{"PUT", "/Agent/%s", func(string) any { return map[string]any{"firstName": "Mallory"} }},
		{"PUT", "/Agent", func(id string) any { return map[string]any{"id": id, "firstName": "Mallory"} }},
		{"PUT", "/Hierarchy/%s", func(string) any { return map[string]any{"name": "Mallory"} }},
	}
	refs := []struct {
		name  string
		probe probe
	}{
		{"node parent", probe{"POST", "/Hierarchy", func(id string) any { return map[string]any{"name": "x", "parentId": id} }}},
		{"node move", probe{"PUT", "/Hierarchy/" + b.site, func(id string) any { return map[string]any{"newParentId": id} }}},
		{"node contact", probe{"POST", "/Hierarchy", func(id string) any { return map[string]any{"name": "x", "managerContactsUserIds": []string{id}} }}},
		{"agent node", probe{"POST", "/Agent", func(id string) any {
			return map[string]any{"firstName": "x", "lastName": "y", "agentEmail": "x@y.io", "osms": []string{id}}
		}}},
		{"agent user", probe{"PUT", "/Agent/" + b.agent, func(id string) any { return map[string]any{"userId": id} }}},
		{"agent manager", probe{"PUT", "/Agent/" + b.agent, func(id string) any { return map[string]any{"managerId": id} }}},
	}
	answer := func(p probe, id string) string {
		path := strings.Replace(p.path, "%s", id, 1)
		var body any
		if p.body != nil {
			body = p.body(id)
		}
		r := e.jsonReq(p.method, path, tokB, body)
		return r.Result().Status + " " + traceID.ReplaceAllString(strings.ReplaceAll(r.Body.String(), id, "<ID>"), "")
	}
	same := func(name string, p probe, foreign string) {
		got, want := answer(p, foreign), answer(p, unknown)
		if got != want {
			t.Errorf("%s: another organization's id answers\n  %s\nbut an unknown id answers\n  %s", name, got, want)
		}
		if !strings.HasPrefix(got, "40") {
			t.Errorf("%s: foreign id accepted: %s", name, got)
		}
	}
	for _, p := range byID {
		for name, foreign := range map[string]string{"user": a.user, "agent": a.agent, "node": a.region} {
			same(p.method+" "+p.path+" with A's "+name, p, foreign)
		}
	}
	for _, r := range refs {
		for name, foreign := range map[string]string{"user": a.user, "node": a.team} {
			same(r.name+" with A's "+name, r.probe, foreign)
		}
	}

	// Names and codes: A's user name is unknown to B; A's codes are free in B.
	if got, want := answer(probe{"GET", "/User?UserName=ann", nil}, "x"), answer(probe{"GET", "/User?UserName=nobody-at-all", nil}, "x"); got != want {
		t.Errorf("user name of A: %s vs %s", got, want)
	}
	mustStatus(t, e.jsonReq("POST", "/Hierarchy", tokB, map[string]any{"name": "B's own NA", "code": "NA"}), 200)
	mustStatus(t, e.jsonReq("POST", "/Agent", tokB, map[string]any{"firstName": "x", "lastName": "y", "agentEmail": "x@y.io", "agentCode": "A100"}), 200)

	// Lists show one organization only, and A's data is unchanged.
	for _, path := range []string{"/User/All", "/Hierarchy/All", "/Hierarchy", "/Agent/All", "/Roles/All"} {
		body := e.jsonReq("GET", path, tokB, nil).Body.String()
		for _, id := range []string{a.user, a.user2, a.region, a.site, a.team, a.agent, e.org.ID} {
			if strings.Contains(body, id) {
				t.Errorf("%s for B shows A's %s", path, id)
			}
		}
	}
	if u := e.jsonReq("GET", "/User/"+a.user, tokA, nil).json(t); u["firstName"] != "Ann" {
		t.Errorf("A's user changed: %v", u)
	}

}
