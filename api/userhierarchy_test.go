package api

import (
	"encoding/json"
	"maps"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"
)

// A user's hierarchy permissions: set and read through /UserHierarchy,
// inherited down the tree, and enforced on every read of a client acting
// for the user: a user limited to one branch, and to chats, sees only
// that branch's chats, by list and by id.
func TestUserHierarchyPermissions(t *testing.T) {
	t.Parallel()
	e := newTestEnv(t, Options{})
	tok := e.token(t)
	f := buildOrg(t, e, tok, "") // North America > Boston > Billing; ann is a Supervisor
	london := mustStatus(t, e.jsonReq("POST", "/Hierarchy", tok, map[string]any{"name": "London", "parentId": f.region, "code": "LON"}), 200).id(t)
	admin := mustStatus(t, e.jsonReq("POST", "/User", tok, map[string]any{"firstName": "Ada", "lastName": "Root", "userName": "ada",
		"email": "ada@example.com", "roleName": "Administrator"}), 200).id(t)
	classifier := mustStatus(t, e.jsonReq("POST", "/Conversations/Classifiers", tok, classifierBody("Order", "Classifier", "Topics",
		`{"groups":[{"rules":[{"phrases":["order"]}]}]}`)), http.StatusCreated).id(t)
	chat := `{"messages":[{"participant":"Customer","text":"Where is my order?"}]}`
	billing := mustStatus(t, e.upload("/TextMedia/Upload", tok, meta("HierarchyId", f.team), file("billing.json", chat)), 200).id(t)
	inLondon := mustStatus(t, e.upload("/TextMedia/Upload", tok, meta("HierarchyId", london), file("london.json", chat)), 200).id(t)
	nowhere := mustStatus(t, e.upload("/TextMedia/Upload", tok, meta("LocaleId", 1033), file("nowhere.json", chat)), 200).id(t)
	e.runIngest(t)

	// ann: View on Chat from Boston down; Audio only in London.
	put := func(user, node, body string, status int) response {
		t.Helper()
		return mustStatus(t, e.jsonReq("PUT", "/UserHierarchy/"+user+"/"+node, tok, body), status)
	}
	r := put(f.user, f.site, `{"accessLevel":"view","permissions":["chat"]}`, 200)
	if v := r.json(t); v["hierarchyId"] != f.site || v["accessLevel"] != "View" || !slices.Equal(strs(v["permissions"]), []string{"Chat"}) {
		t.Fatalf("put: %s", r.Body)
	}
	put(f.user, london, `{"accessLevel":"Manage","permissions":["Audio"]}`, 200)

	var all []userHierarchyItem
	json.Unmarshal(mustStatus(t, e.jsonReq("GET", "/UserHierarchy/"+f.user+"/All", tok, nil), 200).Body.Bytes(), &all)
	levels := map[string]string{}
	for _, it := range all {
		levels[it.HierarchyName] = deref(it.AccessLevel) + " " + strings.Join(it.Permissions, ",")
	}
	want := map[string]string{"North America": " ", "Boston": "View Chat", "Billing": "View Chat", "London": "Manage Audio"}
	if !maps.Equal(levels, want) {
		t.Errorf("/All: %v, want %v", levels, want)
	}
	var under []userHierarchyItem
	json.Unmarshal(mustStatus(t, e.jsonReq("GET", "/UserHierarchy/"+f.user+"/"+f.region, tok, nil), 200).Body.Bytes(), &under)
	if len(under) != 3 { // Boston, Billing, London: the region itself has no access
		t.Errorf("under the region: %+v", under)
	}

	// Acting for ann: Billing's chat only, whatever the read.
	asAnn := func(method, target string, body any) response {
		t.Helper()
		h := bearer(tok)
		h.Set("X-Earshot-User", "ANN")
		var data []byte
		if body != nil {
			data, _ = json.Marshal(body)
			h.Set("Content-Type", "application/json")
		}
		return e.do(method, target, strings.NewReader(string(data)), h)
	}
	today := time.Now().UTC().Format(time.DateOnly)
	seen := func(r response) []string {
		t.Helper()
		var items []struct{ ID, ConversationID string }
		if err := json.Unmarshal(r.Body.Bytes(), &items); err != nil {
			t.Fatalf("%d %s", r.Code, r.Body)
		}
		var ids []string
		for _, it := range items {
			ids = append(ids, it.ID+it.ConversationID)
		}
		return ids
	}
	for target, wantIDs := range map[string][]string{
		"/Metadata?StartDate=" + today:                                                       {billing},
		"/ModelResults?modelIds=" + classifier + "&includeUnprocessedMedia=true":             {billing + billing},
		"/Conversations/Insights?StartDate=" + today + "&EndDate=" + today:                   {billing},
		"/Interactions?StartDate=" + today + "&EndDate=" + today:                             {billing},
		"/ModelResults/Conversation?modelIds=" + classifier + "&conversationIds=" + inLondon: nil,
	} {
		r := asAnn("GET", target, nil)
		if got := seen(r); !slices.Equal(got, wantIDs) {
			t.Errorf("as ann, %s: %v, want %v", target, got, wantIDs)
		}
		if strings.Contains(target, "Insights") && r.Header().Get("X-Total-Records") != "1" {
			t.Errorf("as ann, Insights counts %s", r.Header().Get("X-Total-Records"))
		}
	}
	for _, other := range []string{inLondon, nowhere} {
		for _, req := range []struct {
			method, target string
			body           any
		}{
			{"GET", "/Conversations/Transcriptions/" + other, nil},
			{"GET", "/Interactions/" + other, nil},
			{"PATCH", "/Metadata/" + other, map[string]any{"clientCallId": "x"}},
			{"POST", "/ModelResults/Reviews", map[string]any{"conversationId": other, "eventType": "HumanReview", "reviewer": "ann",
				"modelResults": []map[string]any{{"modelId": classifier, "result": false}}}},
		} {
			if r := asAnn(req.method, req.target, req.body); r.Code != http.StatusNotFound {
				t.Errorf("as ann, %s %s: %d %s", req.method, req.target, r.Code, r.Body)
			}
		}
	}
	mustStatus(t, asAnn("GET", "/Conversations/Transcriptions/"+billing, nil), 200)
	// A user with no permission anywhere reads nothing (and nothing fails).
	asRaj := bearer(tok)
	asRaj.Set("X-Earshot-User", "raj")
	for target, want := range map[string]int{
		"/ModelResults?modelIds=" + classifier:                             200,
		"/Conversations/Insights?StartDate=" + today + "&EndDate=" + today: 404,
		"/Interactions?StartDate=" + today + "&EndDate=" + today:           404,
		"/Metadata?StartDate=" + today:                                     200,
	} {
		if r := e.do("GET", target, nil, asRaj); r.Code != want || r.Code == 200 && r.Body.String() != "[]" {
			t.Errorf("as raj, %s: %d %s", target, r.Code, r.Body)
		}
	}

	// London's chats once ann may read chats there; the client alone, and
	// an administrator, see everything.
	put(f.user, london, `{"accessLevel":"View","permissions":["Audio","Chat"]}`, 200)
	if got := seen(asAnn("GET", "/Metadata?StartDate="+today, nil)); !slices.Equal(got, []string{billing, inLondon}) {
		t.Errorf("after the London grant: %v", got)
	}
	if got := seen(mustStatus(t, e.jsonReq("GET", "/Metadata?StartDate="+today, tok, nil), 200)); len(got) != 3 {
		t.Errorf("the client itself: %v", got)
	}
	h := bearer(tok)
	h.Set("X-Earshot-User", admin)
	if got := seen(e.do("GET", "/Metadata?StartDate="+today, nil, h)); len(got) != 3 {
		t.Errorf("an administrator: %v", got)
	}
	// Removing the Boston grant leaves ann only London.
	put(f.user, f.site, `{"permissions":[]}`, 200)
	if got := seen(asAnn("GET", "/Metadata?StartDate="+today, nil)); !slices.Equal(got, []string{inLondon}) {
		t.Errorf("after removing Boston: %v", got)
	}

	// Mistakes.
	for body, field := range map[string]string{
		`{"accessLevel":"Owner","permissions":["Chat"]}`: "accessLevel",
		`{"accessLevel":"View","permissions":["Fax"]}`:   "permissions",
		`{"permissions":["Chat"]}`:                       "accessLevel",
		`{"accessLevel":"View"}`:                         "permissions",
	} {
		if errs, _ := put(f.user, f.team, body, 400).json(t)["errors"].(map[string]any); errs[field] == nil {
			t.Errorf("%s: errors lack %s", body, field)
		}
	}
	put(f.user, "00000000-0000-0000-0000-000000000000", `{"accessLevel":"View","permissions":["Chat"]}`, 404)
	put("00000000-0000-0000-0000-000000000000", f.team, `{"accessLevel":"View","permissions":["Chat"]}`, 404)
	mustStatus(t, e.jsonReq("GET", "/UserHierarchy/"+f.user2+"/"+f.region, tok, nil), 400) // raj has no access there
	mustStatus(t, e.jsonReq("GET", "/UserHierarchy/nobody/All", tok, nil), 400)
	h = bearer(tok)
	h.Set("X-Earshot-User", "nobody")
	mustStatus(t, e.do("GET", "/Me", nil, h), http.StatusForbidden)
}

func strs(v any) []string {
	var out []string
	for _, x := range v.([]any) {
		out = append(out, x.(string))
	}
	return out
}
