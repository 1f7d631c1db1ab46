package api

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/elimity-com/scim"
	filter "github.com/scim2/filter-parser/v2"
)

// FuzzApplyPatch applies PATCH operations as identity providers send
// them (any path the parser takes, any value) to a user's attributes:
// they apply or are refused, never a panic.
func FuzzApplyPatch(f *testing.F) {
	f.Add("replace", `emails[type eq "work"].value`, `"a@example.com"`)
	f.Add("add", "phoneNumbers", `[{"value":"555","type":"work"}]`)
	f.Add("remove", "name.givenName", `null`)
	f.Add("replace", "", `{"active":false,"name":{"givenName":"B"}}`)
	f.Add("remove", `emails[primary eq true]`, `null`)
	f.Add("Add", "urn:ietf:params:scim:schemas:extension:enterprise:2.0:User:manager", `{"value":"m1"}`)
	f.Add("replace", "", `{"urn:ietf:params:scim:schemas:extension:enterprise:2.0:User":{"department":"Sales"}}`)
	f.Add("remove", "members", `[{"value":"u1"}]`)
	f.Fuzz(func(t *testing.T, op, path, value string) {
		var v any
		if json.Unmarshal([]byte(value), &v) != nil {
			return
		}
		operation := scim.PatchOperation{Op: op, Value: v}
		if path != "" {
			p, err := filter.ParsePath([]byte(path))
			if err != nil {
				return
			}
			operation.Path = &p
		}
		attrs := scim.ResourceAttributes{"userName": "u", "name": map[string]any{"givenName": "A", "familyName": "B"},
			"emails": []any{map[string]any{"value": "a@example.com", "type": "work", "primary": true}}, "active": true}
		if applyPatch(attrs, operation, userSchemas) == nil {
			scimUsers{}.input(attrs) // must read whatever the patch left
		}
	})
}

// FuzzSCIMProject cuts any answer to any attributes and
// excludedAttributes a client names: JSON stays JSON, id stays, never a
// panic.
func FuzzSCIMProject(f *testing.F) {
	f.Add([]byte(`{"id":"1","userName":"u","name":{"givenName":"A"},"urn:ietf:params:scim:schemas:extension:enterprise:2.0:User":{"department":"D"}}`),
		"userName,name.givenName,urn:ietf:params:scim:schemas:extension:enterprise:2.0:User:department", "")
	f.Add([]byte(`{"Resources":[{"id":"1","members":[]}],"totalResults":1}`), "", "members,id")
	f.Fuzz(func(t *testing.T, body []byte, attributes, excluded string) {
		out := scimProject(body, scimNames([]string{attributes}), scimNames([]string{excluded}))
		var in, got map[string]any
		if json.Unmarshal(body, &in) != nil {
			return
		}
		if json.Unmarshal(out, &got) != nil {
			t.Fatalf("%s became %s", body, out)
		}
		if id, ok := in["id"]; ok && fmt.Sprint(got["id"]) != fmt.Sprint(id) {
			t.Fatalf("id %v became %v", id, got["id"])
		}
	})
}
