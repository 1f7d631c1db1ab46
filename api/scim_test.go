package api

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"testing"
)

// scimToken is a token with scope scim of the environment's client, which
// is first given the scope, through the token endpoint.
func (e *testEnv) scimToken(t *testing.T) string {
	t.Helper()
	if err := e.cat.Orgs.SetClientScopes(context.Background(), e.clientID, []string{"acxapi", "scim"}); err != nil {
		t.Fatal(err)
	}
	body, h := formBody(url.Values{"grant_type": {"client_credentials"}, "scope": {"scim"}, "client_id": {e.clientID}, "client_secret": {e.clientSecret}})
	r := e.do("POST", "/connect/token", body, h)
	tok, _ := r.json(t)["access_token"].(string)
	if r.Code != 200 || tok == "" || r.json(t)["scope"] != "scim" {
		t.Fatalf("scim token: %d %s", r.Code, r.Body)
	}
	return tok
}

func (e *testEnv) scim(t *testing.T, token, method, path, body string, header ...string) response {
	t.Helper()
	h := bearer(token)
	h.Set("Content-Type", "application/scim+json")
	for i := 0; i+1 < len(header); i += 2 {
		h.Set(header[i], header[i+1])
	}
	var reader *strings.Reader
	if body != "" {
		reader = strings.NewReader(body)
	} else {
		reader = strings.NewReader("")
	}
	return e.do(method, path, reader, h)
}

// A user provisioned through SCIM with the RFC 7644 examples: created,
// found by filter, patched (renamed, email changed), deactivated, guarded
// by its ETag, and deleted; the same user through /User; the scopes kept
// apart.
func TestSCIMUserCycle(t *testing.T) {
	t.Parallel()
	e := newTestEnv(t, Options{})
	api := e.token(t)
	tok := e.scimToken(t)

	// Discovery.
	r := mustStatus(t, e.scim(t, tok, "GET", "/scim/v2/ServiceProviderConfig", ""), 200)
	if v := r.json(t); v["patch"].(map[string]any)["supported"] != true || v["filter"].(map[string]any)["supported"] != true ||
		v["etag"].(map[string]any)["supported"] != true || r.Header().Get("Content-Type") != "application/scim+json" {
		t.Fatalf("service provider config: %s", r.Body)
	}
	if r := mustStatus(t, e.scim(t, tok, "GET", "/scim/v2/ResourceTypes/User", ""), 200); r.json(t)["endpoint"] != "/Users" {
		t.Fatalf("resource type: %s", r.Body)
	}
	mustStatus(t, e.scim(t, tok, "GET", "/scim/v2/Schemas/urn:ietf:params:scim:schemas:core:2.0:User", ""), 200)
	mustStatus(t, e.scim(t, tok, "GET", "/scim/v2/Schemas", ""), 200)

	// RFC 7644 §3.3's creation (with the work email of RFC 7643 §8.2).
	r = mustStatus(t, e.scim(t, tok, "POST", "/scim/v2/Users", `{"schemas":["urn:ietf:params:scim:schemas:core:2.0:User"],
		"userName":"bjensen","externalId":"bjensen","name":{"formatted":"Ms. Barbara J Jensen III","familyName":"Jensen","givenName":"Barbara"},
		"emails":[{"value":"bjensen@example.com","type":"work","primary":true}]}`), http.StatusCreated)
	created := r.json(t)
	id, _ := created["id"].(string)
	etag := r.Header().Get("Etag")
	if id == "" || created["externalId"] != "bjensen" || created["active"] != true || etag == "" ||
		created["meta"].(map[string]any)["location"] != testPublicURL+"/scim/v2/Users/"+id {
		t.Fatalf("created: %s (ETag %q)", r.Body, etag)
	}
	mustStatus(t, e.scim(t, tok, "POST", "/scim/v2/Users", `{"schemas":["urn:ietf:params:scim:schemas:core:2.0:User"],"userName":"BJensen","name":{"givenName":"B","familyName":"J"},
		"emails":[{"value":"other@example.com"}]}`), http.StatusConflict)
	mustStatus(t, e.scim(t, tok, "POST", "/scim/v2/Users", `{"schemas":["urn:ietf:params:scim:schemas:core:2.0:User"],"name":{"givenName":"N","familyName":"E"}}`), 400)
	mustStatus(t, e.scim(t, tok, "POST", "/scim/v2/Users", `{"schemas":["urn:ietf:params:scim:schemas:core:2.0:User"],"userName":"x","emails":[{"value":"not an address"}]}`), 400)
	// The same user through the API.
	if v := mustStatus(t, e.jsonReq("GET", "/User/"+id, api, nil), 200).json(t); v["userName"] != "bjensen" || v["firstName"] != "Barbara" ||
		v["samlProviderUserCode"] != "bjensen" || v["roleName"] != "Agent" {
		t.Fatalf("/User: %v", v)
	}

	// Filter and paging.
	var list struct {
		TotalResults, StartIndex, ItemsPerPage int
		Resources                              []map[string]any
	}
	json.Unmarshal(mustStatus(t, e.scim(t, tok, "GET", "/scim/v2/Users?filter="+url.QueryEscape(`userName eq "bjensen"`), ""), 200).Body.Bytes(), &list)
	if list.TotalResults != 1 || len(list.Resources) != 1 || list.Resources[0]["id"] != id {
		t.Fatalf("filtered: %+v", list)
	}
	json.Unmarshal(mustStatus(t, e.scim(t, tok, "GET", "/scim/v2/Users?filter="+url.QueryEscape(`name.familyName sw "Jen" and active eq true`)+"&count=5", ""), 200).Body.Bytes(), &list)
	if list.TotalResults != 1 {
		t.Fatalf("filtered by name: %+v", list)
	}
	json.Unmarshal(mustStatus(t, e.scim(t, tok, "GET", "/scim/v2/Users?filter="+url.QueryEscape(`userName eq "nobody"`), ""), 200).Body.Bytes(), &list)
	if list.TotalResults != 0 || len(list.Resources) != 0 {
		t.Fatalf("no match: %+v", list)
	}
	mustStatus(t, e.scim(t, tok, "GET", "/scim/v2/Users?filter="+url.QueryEscape(`userName eq`), ""), 400)

	// RFC 7644 §3.5.2 PATCH: a new given name and work email, then
	// deactivation; a stale If-Match is refused.
	r = mustStatus(t, e.scim(t, tok, "PATCH", "/scim/v2/Users/"+id, `{"schemas":["urn:ietf:params:scim:api:messages:2.0:PatchOp"],
		"Operations":[{"op":"replace","path":"name.givenName","value":"Babs"},
		{"op":"replace","path":"emails[type eq \"work\"].value","value":"babs@example.com"},
		{"op":"add","path":"phoneNumbers","value":[{"value":"555-555-8377","type":"work"}]}]}`, "If-Match", etag), 200)
	if v := r.json(t); v["name"].(map[string]any)["givenName"] != "Babs" || r.Header().Get("Etag") == etag ||
		v["emails"].([]any)[0].(map[string]any)["value"] != "babs@example.com" || v["phoneNumbers"] == nil {
		t.Fatalf("patched: %s", r.Body)
	}
	mustStatus(t, e.scim(t, tok, "PATCH", "/scim/v2/Users/"+id, `{"schemas":["urn:ietf:params:scim:api:messages:2.0:PatchOp"],
		"Operations":[{"op":"replace","path":"active","value":false}]}`, "If-Match", etag), http.StatusPreconditionFailed)
	r = mustStatus(t, e.scim(t, tok, "PATCH", "/scim/v2/Users/"+id, `{"schemas":["urn:ietf:params:scim:api:messages:2.0:PatchOp"],
		"Operations":[{"op":"replace","value":{"active":false}}]}`), 200)
	if r.json(t)["active"] != false {
		t.Fatalf("deactivated: %s", r.Body)
	}
	if v := mustStatus(t, e.jsonReq("GET", "/User/"+id, api, nil), 200).json(t); v["disabled"] != true || v["firstName"] != "Babs" ||
		v["email"] != "babs@example.com" || v["phoneNumber"] != "555-555-8377" {
		t.Fatalf("/User after the patches: %v", v)
	}

	// PUT replaces; DELETE removes.
	r = mustStatus(t, e.scim(t, tok, "PUT", "/scim/v2/Users/"+id, `{"schemas":["urn:ietf:params:scim:schemas:core:2.0:User"],"userName":"bjensen",
		"name":{"givenName":"Barbara","familyName":"Jensen"},"emails":[{"value":"bjensen@example.com","primary":true}],"active":true}`), 200)
	if v := r.json(t); v["active"] != true || v["phoneNumbers"] != nil || v["externalId"] != nil {
		t.Fatalf("replaced: %s", r.Body)
	}
	mustStatus(t, e.scim(t, tok, "DELETE", "/scim/v2/Users/"+id, ""), http.StatusNoContent)
	mustStatus(t, e.scim(t, tok, "GET", "/scim/v2/Users/"+id, ""), http.StatusNotFound)
	mustStatus(t, e.jsonReq("GET", "/User/"+id, api, nil), http.StatusNotFound)
	mustStatus(t, e.scim(t, tok, "DELETE", "/scim/v2/Users/"+id, ""), http.StatusNotFound)

	// Scopes stay apart; another organization's users are not there.
	mustStatus(t, e.scim(t, api, "GET", "/scim/v2/Users", ""), http.StatusForbidden)
	mustStatus(t, e.jsonReq("GET", "/Metadata", tok, nil), http.StatusForbidden)
	mustStatus(t, e.scim(t, "not-a-token", "GET", "/scim/v2/Users", ""), http.StatusUnauthorized)
	orgB, _ := e.cat.Orgs.CreateOrganization(context.Background(), "globex")
	other := mustStatus(t, e.jsonReq("POST", "/User", e.orgToken(t, orgB.ID), map[string]any{"firstName": "O", "lastName": "T",
		"userName": "other", "email": "o@globex.example"}), 200).id(t)
	mustStatus(t, e.scim(t, tok, "GET", "/scim/v2/Users/"+other, ""), http.StatusNotFound)
	if err := e.cat.Orgs.SetClientScopes(context.Background(), e.clientID, []string{"acxapi"}); err != nil {
		t.Fatal(err)
	}
	body, h := formBody(url.Values{"grant_type": {"client_credentials"}, "scope": {"scim"}, "client_id": {e.clientID}, "client_secret": {e.clientSecret}})
	if r := e.do("POST", "/connect/token", body, h); r.Code != 400 || r.json(t)["error"] != "invalid_scope" {
		t.Fatalf("scim for a client without it: %d %s", r.Code, r.Body)
	}
	mustStatus(t, e.scim(t, tok, "GET", "/scim/v2/Users", ""), http.StatusUnauthorized) // its tokens ended with the change
}
