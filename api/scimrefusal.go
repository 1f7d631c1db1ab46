package api

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"

	"github.com/elimity-com/scim"
	scimerrors "github.com/elimity-com/scim/errors"
)

// A PATCH the library refuses gets an answer that names the operation
// refused: each operation is sent alone to the probe (the same protocol
// over handlers that change nothing, newSCIM), and the first the probe
// refuses is named with the library's reason. The library checks every
// operation before the handler applies any, so a refused PATCH changed
// nothing.

// scimNamedRefusal is a PATCH's refusal naming its operation, or refusal
// itself when no single operation is refused.
func (s *Server) scimNamedRefusal(r *http.Request, body, refusal []byte) []byte {
	var req struct {
		Schemas    []string          `json:"schemas"`
		Operations []json.RawMessage `json:"Operations"`
	}
	if json.Unmarshal(body, &req) != nil {
		return refusal
	}
	for i, op := range req.Operations {
		one, err := json.Marshal(map[string]any{"schemas": req.Schemas, "Operations": []json.RawMessage{op}})
		if err != nil {
			return refusal
		}
		rec := httptest.NewRecorder()
		s.scimProbe.ServeHTTP(rec, httptest.NewRequestWithContext(r.Context(), http.MethodPatch, r.URL.String(), bytes.NewReader(one)))
		if rec.Code != http.StatusBadRequest {
			continue
		}
		var why scimerrors.ScimError
		if json.Unmarshal(rec.Body.Bytes(), &why) != nil {
			return refusal
		}
		var named struct{ Op, Path string }
		_ = json.Unmarshal(op, &named)
		if named.Path == "" {
			named.Path = "no path"
		}
		why.Detail = fmt.Sprintf("Operations[%d] (%s, %s) was refused: %s Nothing was changed.", i, named.Op, named.Path, why.Detail)
		out, err := json.Marshal(why)
		if err != nil {
			return refusal
		}
		return out
	}
	return refusal
}

// scimProbe is a resource handler that changes nothing: the probe's
// handlers, reached only by operations the library accepted.
type scimProbe struct{}

var errProbed = scimerrors.ScimErrorInternal

func (scimProbe) Create(*http.Request, scim.ResourceAttributes) (scim.Resource, error) {
	return scim.Resource{}, errProbed
}
func (scimProbe) Get(*http.Request, string) (scim.Resource, error) { return scim.Resource{}, errProbed }
func (scimProbe) GetAll(*http.Request, scim.ListRequestParams) (scim.Page, error) {
	return scim.Page{}, errProbed
}
func (scimProbe) Replace(*http.Request, string, scim.ResourceAttributes) (scim.Resource, error) {
	return scim.Resource{}, errProbed
}
func (scimProbe) Delete(*http.Request, string) error { return errProbed }
func (scimProbe) Patch(*http.Request, string, []scim.PatchOperation) (scim.Resource, error) {
	return scim.Resource{}, errProbed
}
