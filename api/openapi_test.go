package api

import (
	"context"
	"net/http/httptest"
	"sort"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
)

// The document and the router must list the same operations: a route the
// document lacks, or a documented operation with no route, fails here.
func TestOpenAPIMatchesRoutes(t *testing.T) {
	t.Parallel()
	e := newTestEnv(t, Options{})
	r := e.do("GET", "/swagger/v1/swagger.json", nil, nil)
	if r.Code != 200 || r.Header().Get("Content-Type") != "application/json" {
		t.Fatalf("swagger.json: %d %s", r.Code, r.Header().Get("Content-Type"))
	}
	loader := openapi3.NewLoader()
	doc, err := loader.LoadFromData(r.Body.Bytes())
	if err != nil {
		t.Fatalf("document does not load: %v", err)
	}
	if err := doc.Validate(context.Background()); err != nil {
		t.Fatalf("document is not valid OpenAPI 3: %v", err)
	}

	var documented, routed []string
	for path, item := range doc.Paths.Map() {
		for method := range item.Operations() {
			documented = append(documented, method+" "+path)
		}
	}
	for _, rt := range e.srv.engine.Routes() {
		if !isConsole(rt.Path) && rt.Path != "/" { // pages (and the way to them), not operations
			routed = append(routed, rt.Method+" "+ginToOpenAPIPath(rt.Path))
		}
	}
	sort.Strings(documented)
	sort.Strings(routed)
	if strings.Join(documented, "\n") != strings.Join(routed, "\n") {
		t.Fatalf("document and router differ\ndocumented:\n  %s\nrouted:\n  %s",
			strings.Join(documented, "\n  "), strings.Join(routed, "\n  "))
	}
}

// ginToOpenAPIPath turns /User/:id into /User/{id}.
func ginToOpenAPIPath(p string) string {
	segs := strings.Split(p, "/")
	for i, s := range segs {
		if strings.HasPrefix(s, ":") || strings.HasPrefix(s, "*") {
			segs[i] = "{" + s[1:] + "}"
		}
	}
	return strings.Join(segs, "/")
}

// The response check every test request goes through must be able to fail.
func TestDocumentCheckCatchesDrift(t *testing.T) {
	t.Parallel()
	respond := func(status int, body string) *httptest.ResponseRecorder {
		rec := httptest.NewRecorder()
		rec.Header().Set("Content-Type", "application/json")
		rec.WriteHeader(status)
		rec.WriteString(body)
		return rec
	}
	req := httptest.NewRequest("GET", "/healthz", nil)
	if err := checkAgainstDocument(req, respond(200, `{"status":"ok"}`)); err != nil {
		t.Fatalf("a documented response was refused: %v", err)
	}
	if err := checkAgainstDocument(req, respond(418, `{}`)); err == nil {
		t.Error("an undocumented status passed")
	}
	req = httptest.NewRequest("GET", "/Roles/All", nil)
	if err := checkAgainstDocument(req, respond(200, `[{"name":"x"}]`)); err == nil {
		t.Error("a body missing required members passed")
	}
}
