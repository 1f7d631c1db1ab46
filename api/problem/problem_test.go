package problem

import (
	"encoding/json"
	"net/http/httptest"
	"testing"

	"github.com/gin-gonic/gin"
)

func TestWrite(t *testing.T) {
	cases := []struct {
		name string
		p    *Problem
		want string
	}{
		{"plain", New(404, "No such thing."),
			`{"detail":"No such thing.","errors":{},"status":404,"title":"Not Found","traceId":"t-1","type":"https://tools.ietf.org/html/rfc9110#section-15.5.5"}`},
		{"field", Field("StartDate", "Not a date.", "StartDate must be a date."),
			`{"detail":"StartDate must be a date.","errors":{"StartDate":["Not a date."]},"status":400,"title":"Bad Request","traceId":"t-1","type":"https://tools.ietf.org/html/rfc9110#section-15.5.1"}`},
		{"extension cannot replace standard members", &Problem{Status: 400, Detail: "Bad <model>.", Extensions: map[string]any{"availableModelIds": []string{"a"}, "status": 999}},
			`{"availableModelIds":["a"],"detail":"Bad <model>.","errors":{},"status":400,"title":"Bad Request","traceId":"t-1","type":"https://tools.ietf.org/html/rfc9110#section-15.5.1"}`},
		{"unknown status", &Problem{Status: 418, Title: "Teapot", Detail: "Short and stout."},
			`{"detail":"Short and stout.","errors":{},"status":418,"title":"Teapot","traceId":"t-1","type":"about:blank"}`},
		{"invalid fields: one wording, naming them", Invalid(map[string][]string{"PageSize": {"Too big."}, "EndDate": {"Early."}}),
			`{"detail":"The request has invalid or missing fields: EndDate, PageSize. See errors for each.","errors":{"EndDate":["Early."],"PageSize":["Too big."]},"status":400,"title":"Bad Request","traceId":"t-1","type":"https://tools.ietf.org/html/rfc9110#section-15.5.1"}`},
	}
	gin.SetMode(gin.ReleaseMode)
	for _, c := range cases {
		rec := httptest.NewRecorder()
		ctx, _ := gin.CreateTestContext(rec)
		ctx.Set(TraceIDKey, "t-1")
		Write(ctx, c.p)
		if rec.Code != c.p.Status || rec.Header().Get("Content-Type") != ContentType || !ctx.IsAborted() {
			t.Errorf("%s: status %d, content type %q, aborted %v", c.name, rec.Code, rec.Header().Get("Content-Type"), ctx.IsAborted())
		}
		if body := rec.Body.String(); body[len(body)-1] != '}' {
			t.Errorf("%s: the body does not end with its object: %q", c.name, body)
		}
		var got, want any
		json.Unmarshal(rec.Body.Bytes(), &got)
		json.Unmarshal([]byte(c.want), &want)
		g, _ := json.Marshal(got)
		w, _ := json.Marshal(want)
		if string(g) != string(w) {
			t.Errorf("%s:\n got %s\nwant %s", c.name, g, w)
		}
	}
}

// A body that repeats a query's parameters has its problems name them as
// the body does.
func TestNameFieldsAsBody(t *testing.T) {
	gin.SetMode(gin.ReleaseMode)
	rec := httptest.NewRecorder()
	ctx, _ := gin.CreateTestContext(rec)
	NameFieldsAsBody(ctx)
	Write(ctx, Invalid(map[string][]string{"StartDate": {"Required."}, "ClassifierIds": {"Bad."}}))
	var got struct {
		Detail string
		Errors map[string][]string
	}
	json.Unmarshal(rec.Body.Bytes(), &got)
	if got.Detail != "The request has invalid or missing fields: classifierIds, startDate. See errors for each." ||
		len(got.Errors) != 2 || got.Errors["startDate"] == nil || got.Errors["classifierIds"] == nil {
		t.Fatalf("%+v", got)
	}
}
