package api

import (
	"encoding/json"
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
