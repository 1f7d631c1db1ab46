// Package problem writes RFC 9457 problem details, the body of every error
// the API returns (CONTRACT §1):
//
//	{"type","title","status","detail","traceId","errors":{"<param>":["message"]}}
package problem

import (
	"bytes"
	"encoding/json"
	"maps"
	"net/http"

	"github.com/gin-gonic/gin"
)

// ContentType is the media type of problem bodies.
const ContentType = "application/problem+json"

// Problem is one error response.
type Problem struct {
	Status int
	Title  string // defaults to the status text
	Detail string // a full sentence a person can act on
	// Errors names the offending parameters (validation errors).
	Errors map[string][]string
	// Extensions are extra members (e.g. availableModelIds); they never
	// replace the standard ones.
	Extensions map[string]any
}

// New makes a problem with a detail sentence.
func New(status int, detail string) *Problem {
	return &Problem{Status: status, Detail: detail}
}

// Field makes a validation problem (400) naming one parameter.
func Field(param, message, detail string) *Problem {
	return &Problem{Status: http.StatusBadRequest, Detail: detail, Errors: map[string][]string{param: {message}}}
}

// Invalid makes a validation problem (400) naming several parameters.
func Invalid(detail string, errs map[string][]string) *Problem {
	return &Problem{Status: http.StatusBadRequest, Detail: detail, Errors: errs}
}

// typeURI follows ASP.NET Core, which the AcxApi clients are used to: the
// RFC 9110 section of the status.
var typeURI = map[int]string{
	400: "https://tools.ietf.org/html/rfc9110#section-15.5.1",
	401: "https://tools.ietf.org/html/rfc9110#section-15.5.2",
	403: "https://tools.ietf.org/html/rfc9110#section-15.5.4",
	404: "https://tools.ietf.org/html/rfc9110#section-15.5.5",
	405: "https://tools.ietf.org/html/rfc9110#section-15.5.6",
	409: "https://tools.ietf.org/html/rfc9110#section-15.5.10",
	413: "https://tools.ietf.org/html/rfc9110#section-15.5.14",
	415: "https://tools.ietf.org/html/rfc9110#section-15.5.16",
	429: "https://tools.ietf.org/html/rfc6585#section-4",
	500: "https://tools.ietf.org/html/rfc9110#section-15.6.1",
	503: "https://tools.ietf.org/html/rfc9110#section-15.6.4",
}

// Body is the JSON object of p for a request with the given trace id.
func (p *Problem) Body(traceID string) map[string]any {
	body := map[string]any{}
	maps.Copy(body, p.Extensions)
	title := p.Title
	if title == "" {
		title = http.StatusText(p.Status)
	}
	typ, ok := typeURI[p.Status]
	if !ok {
		typ = "about:blank"
	}
	errs := p.Errors
	if errs == nil {
		errs = map[string][]string{}
	}
	body["type"], body["title"], body["status"] = typ, title, p.Status
	body["detail"], body["traceId"], body["errors"] = p.Detail, traceID, errs
	return body
}

// TraceIDKey is the gin context key holding the request id.
const TraceIDKey = "earshot.requestId"

// Write sends p and aborts the handler chain.
func Write(c *gin.Context, p *Problem) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false) // detail sentences may quote <token> and the like
	if err := enc.Encode(p.Body(c.GetString(TraceIDKey))); err != nil {
		// Only an unmarshalable extension can get here.
		buf.Reset()
		buf.WriteString(`{"status":500,"title":"Internal Server Error"}`)
	}
	c.Abort()
	c.Data(p.Status, ContentType, buf.Bytes())
}
