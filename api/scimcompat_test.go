package api

import (
	"encoding/json"
	"fmt"
	"net/http"
	"sync"
	"testing"
)

// The string booleans Entra ID sends become booleans, by attribute name
// and by a PATCH operation's path; other strings and non-JSON stay.
func TestSCIMStringBooleans(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		`{"active":"False","userName":"u"}`:                                      `{"active":false,"userName":"u"}`,
		`{"emails":[{"value":"a@b.c","primary":"True"}]}`:                        `{"emails":[{"primary":true,"value":"a@b.c"}]}`,
		`{"Operations":[{"op":"Replace","path":"active","value":"False"}]}`:      `{"Operations":[{"op":"Replace","path":"active","value":false}]}`,
		`{"Operations":[{"op":"replace","value":{"active":"true"}}]}`:            `{"Operations":[{"op":"replace","value":{"active":true}}]}`,
		`{"Operations":[{"op":"Replace","path":"displayName","value":"False"}]}`: `{"Operations":[{"op":"Replace","path":"displayName","value":"False"}]}`,
		`{"active":"maybe"}`: `{"active":"maybe"}`,
		`not json`:           `not json`,
	} {
		if got := string(scimClientBody([]byte(in))); got != want {
			t.Errorf("%s: %s, want %s", in, got, want)
		}
	}
}

// Issue 41's first, third and seventh failures, as the clients send them:
// a page through users by startIndex (Okta), its itemsPerPage the number
// returned; a deactivation with a string boolean (Entra ID), then a
// reactivation.
func TestSCIMClientForms(t *testing.T) {
	t.Parallel()
	e := newTestEnv(t, Options{})
	tok := e.scimToken(t)
	var ids []string
	for i := range 5 {
		r := mustStatus(t, e.scim(t, tok, "POST", "/scim/v2/Users", fmt.Sprintf(`{"schemas":["urn:ietf:params:scim:schemas:core:2.0:User"],
			"userName":"user%d@example.com","name":{"givenName":"G%d","familyName":"F%d"},"emails":[{"value":"user%d@example.com","type":"work","primary":true}],
			"active":"True"}`, i, i, i, i)), http.StatusCreated)
		ids = append(ids, r.json(t)["id"].(string))
	}
	all := mustStatus(t, e.scim(t, tok, "GET", "/scim/v2/Users?count=100", ""), 200).json(t)
	total := int(all["totalResults"].(float64))
	seen := map[string]bool{}
	for start := 1; start <= total; start += 2 {
		page := mustStatus(t, e.scim(t, tok, "GET", fmt.Sprintf("/scim/v2/Users?startIndex=%d&count=2", start), ""), 200).json(t)
		resources, _ := page["Resources"].([]any)
		if int(page["startIndex"].(float64)) != start || int(page["itemsPerPage"].(float64)) != len(resources) || len(resources) != min(2, total-start+1) {
			t.Fatalf("the page from %d: startIndex %v, itemsPerPage %v, %d resources", start, page["startIndex"], page["itemsPerPage"], len(resources))
		}
		for _, r := range resources {
			seen[r.(map[string]any)["id"].(string)] = true
		}
	}
	if len(seen) != total {
		t.Errorf("paging by startIndex saw %d users of %d", len(seen), total)
	}
	for _, active := range []string{"False", "True"} {
		mustStatus(t, e.scim(t, tok, "PATCH", "/scim/v2/Users/"+ids[0], `{"schemas":["urn:ietf:params:scim:api:messages:2.0:PatchOp"],
			"Operations":[{"op":"Replace","path":"active","value":"`+active+`"}]}`), 200)
		if got := mustStatus(t, e.scim(t, tok, "GET", "/scim/v2/Users/"+ids[0], ""), 200).json(t)["active"]; got != (active == "True") {
			t.Errorf("after active %q: active %v", active, got)
		}
	}
}

// Whatever a client sends, the booleans' rewrite answers a body, JSON
// when it was JSON, and never panics.
func FuzzSCIMClientBody(f *testing.F) {
	f.Add([]byte(`{"Operations":[{"op":"Replace","path":"active","value":"False"}],"emails":[{"primary":"true"}]}`))
	f.Add([]byte(`[[[{"path":{"active":"true"},"value":"TRUE"}]]]`))
	f.Fuzz(func(t *testing.T, body []byte) {
		out := scimClientBody(body)
		if json.Valid(body) && !json.Valid(out) {
			t.Fatalf("%s became %s", body, out)
		}
	})
}

// Issue 41's fourth failure: Entra ID's path-less Replace whose value's
// key is a path with a value filter changes the e-mail address.
func TestSCIMPathKeysInAValue(t *testing.T) {
	t.Parallel()
	e := newTestEnv(t, Options{})
	tok := e.scimToken(t)
	id := mustStatus(t, e.scim(t, tok, "POST", "/scim/v2/Users", `{"schemas":["urn:ietf:params:scim:schemas:core:2.0:User"],
		"userName":"ryan@example.com","name":{"givenName":"Ryan","familyName":"Leenay"},"emails":[{"value":"ryan@example.com","type":"work","primary":true}]}`),
		http.StatusCreated).json(t)["id"].(string)
	mustStatus(t, e.scim(t, tok, "PATCH", "/scim/v2/Users/"+id, `{"schemas":["urn:ietf:params:scim:api:messages:2.0:PatchOp"],
		"Operations":[{"op":"Replace","value":{"emails[type eq \"work\"].value":"ryan.leenay@example.com","name.familyName":"Leenay-Ng"}}]}`), 200)
	got := mustStatus(t, e.scim(t, tok, "GET", "/scim/v2/Users/"+id, ""), 200).json(t)
	emails, _ := got["emails"].([]any)
	if len(emails) != 1 || emails[0].(map[string]any)["value"] != "ryan.leenay@example.com" || got["name"].(map[string]any)["familyName"] != "Leenay-Ng" {
		t.Errorf("after the path-keyed replace: %v", got)
	}
}

// Membership changes of one group sent at once, without If-Match (as
// identity providers send them), are all kept; the discovery documents
// name Groups and the enterprise extension; paging past the end, a count
// of 0 and excludedAttributes on a list answer as RFC 7644 says.
func TestSCIMGroupsAtOnceAndDiscovery(t *testing.T) {
	t.Parallel()
	e := newTestEnv(t, Options{})
	tok := e.scimToken(t)
	group := mustStatus(t, e.scim(t, tok, "POST", "/scim/v2/Groups", `{"schemas":["urn:ietf:params:scim:schemas:core:2.0:Group"],"displayName":"Team"}`),
		http.StatusCreated).json(t)["id"].(string)
	const members = 8
	ids := make([]string, members)
	for i := range ids {
		ids[i] = mustStatus(t, e.scim(t, tok, "POST", "/scim/v2/Users", fmt.Sprintf(`{"schemas":["urn:ietf:params:scim:schemas:core:2.0:User"],"userName":"m%d"}`, i)),
			http.StatusCreated).json(t)["id"].(string)
	}
	var wg sync.WaitGroup
	codes := make([]int, members)
	for i, id := range ids {
		wg.Add(1)
		go func() {
			defer wg.Done()
			codes[i] = e.scim(t, tok, "PATCH", "/scim/v2/Groups/"+group, `{"schemas":["urn:ietf:params:scim:api:messages:2.0:PatchOp"],
				"Operations":[{"op":"add","path":"members","value":[{"value":"`+id+`"}]}]}`).Code
		}()
	}
	wg.Wait()
	got, _ := mustStatus(t, e.scim(t, tok, "GET", "/scim/v2/Groups/"+group, ""), 200).json(t)["members"].([]any)
	if len(got) != members {
		t.Errorf("%d members after %d additions at once (statuses %v)", len(got), members, codes)
	}

	for _, path := range []string{"/scim/v2/ResourceTypes/Group", "/scim/v2/Schemas/urn:ietf:params:scim:schemas:core:2.0:Group",
		"/scim/v2/Schemas/urn:ietf:params:scim:schemas:extension:enterprise:2.0:User"} {
		mustStatus(t, e.scim(t, tok, "GET", path, ""), 200)
	}
	if ext := mustStatus(t, e.scim(t, tok, "GET", "/scim/v2/ResourceTypes/User", ""), 200).json(t)["schemaExtensions"]; ext == nil {
		t.Error("the User resource type names no schema extension")
	}
	for query, want := range map[string][2]int{ // totalResults, resources returned
		"startIndex=20&count=5":             {members, 0},
		"count=0":                           {members, 0},
		"startIndex=0&count=3":              {members, 3},
		"count=2&excludedAttributes=emails": {members, 2},
	} {
		page := mustStatus(t, e.scim(t, tok, "GET", "/scim/v2/Users?"+query, ""), 200).json(t)
		resources, _ := page["Resources"].([]any)
		if int(page["totalResults"].(float64)) != want[0] || len(resources) != want[1] || int(page["itemsPerPage"].(float64)) != want[1] {
			t.Errorf("%s: %v", query, page)
		}
	}
}
