package api

import (
	"strings"
	"testing"
)

// Long strings in any field of POST /Metadata and PATCH /Metadata/{id} are
// a 400 naming the field, never a 500.
func TestMetadataLongValues(t *testing.T) {
	t.Parallel()
	e := newTestEnv(t, Options{})
	tok := e.token(t)
	r := mustStatus(t, e.upload("/Media/Upload", tok, meta("FileName", "p.wav", "UploadType", "Audio"), file("p.wav", wavBytes)), 200)
	id := r.json(t)["id"].(string)
	long := strings.Repeat("9", 1001)
	base := map[string]any{"startDate": "2025-10-01", "endDate": "2025-10-09", "pageSize": 2}
	for _, field := range []string{"id", "clientCallId", "hierarchyIds", "pageSize", "lastId", "mediaType", "status", "startDate"} {
		body := map[string]any{}
		for k, v := range base {
			body[k] = v
		}
		body[field] = long
		r := e.jsonReq("POST", "/Metadata", tok, body)
		if errs, _ := r.json(t)["errors"].(map[string]any); r.Code != 400 || len(errs) == 0 {
			t.Errorf("POST /Metadata with a long %s: %d %s", field, r.Code, r.Body)
		}
	}
	for _, field := range []string{"localeId", "clientCallId", "phone", "callDirection", "timestamp"} {
		r := e.jsonReq("PATCH", "/Metadata/"+id, tok, map[string]any{field: long})
		if r.Code != 400 {
			t.Errorf("PATCH /Metadata with a long %s: %d %s", field, r.Code, r.Body)
		}
	}
}
