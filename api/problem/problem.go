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
	"slices"
	"strings"

	"github.com/gin-gonic/gin"

	"github.com/earshot/earshot/internal/invalid"
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
	// Header is sent with it (Retry-After, WWW-Authenticate).
	Header http.Header
}

// Error makes a problem the error a handler returns (the API's one
// renderer writes it as it is).
func (p *Problem) Error() string {
	if p.Detail == "" && len(p.Errors) > 0 {
		return invalidDetail(p.Errors)
	}
	return p.Detail
}

// New makes a problem with a detail sentence.
func New(status int, detail string) *Problem {
	return &Problem{Status: status, Detail: detail}
}

// Field makes a validation problem (400) naming one parameter.
func Field(param, message, detail string) *Problem {
	return &Problem{Status: http.StatusBadRequest, Detail: detail, Errors: map[string][]string{param: {message}}}
}

// Mistake is the 400 of an input mistake: naming its field, or, for the
// input as a whole, its sentence alone.
func Mistake(f *invalid.Field) *Problem {
	if f.Path == "" {
		return New(http.StatusBadRequest, f.Sentence())
	}
	return Field(f.Path, f.Message, f.Sentence())
}

// Invalid makes a validation problem (400) naming several parameters; its
// detail lists them (every such 400 is worded the same way).
func Invalid(errs map[string][]string) *Problem {
	return &Problem{Status: http.StatusBadRequest, Errors: errs}
}

// invalidDetail is the detail of a validation problem without one of its
// own.
func invalidDetail(errs map[string][]string) string {
	names := slices.Sorted(maps.Keys(errs))
	return "The request has invalid or missing fields: " + strings.Join(names, ", ") + ". See errors for each."
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
	detail := p.Detail
	if detail == "" && len(errs) > 0 {
		detail = invalidDetail(errs)
	}
	body["detail"], body["traceId"], body["errors"] = detail, traceID, errs
	return body
}

// TraceIDKey is the gin context key holding the request id.
const TraceIDKey = "earshot.requestId"

// bodyNamesKey marks a request whose JSON body carries the parameters of
// a query (POST /Metadata, POST /Conversations/Insights).
const bodyNamesKey = "earshot.bodyNames"

// NameFieldsAsBody makes the request's problems name their fields as its
// JSON body spells them (camelCase: startDate), not as the query does
// (PascalCase: StartDate): the checks are shared.
func NameFieldsAsBody(c *gin.Context) { c.Set(bodyNamesKey, true) }

func camelCase(name string) string {
	if name == "" {
		return name
	}
	return strings.ToLower(name[:1]) + name[1:]
}

// Write sends p and aborts the handler chain.
func Write(c *gin.Context, p *Problem) {
	if c.GetBool(bodyNamesKey) && len(p.Errors) > 0 {
		renamed := *p
		renamed.Errors = map[string][]string{}
		for k, v := range p.Errors {
			renamed.Errors[camelCase(k)] = append(renamed.Errors[camelCase(k)], v...)
		}
		p = &renamed
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false) // detail sentences may quote <token> and the like
	if err := enc.Encode(p.Body(c.GetString(TraceIDKey))); err != nil {
		// Only an unmarshalable extension can get here.
		buf.Reset()
		buf.WriteString(`{"status":500,"title":"Internal Server Error"}`)
	}
	c.Abort()
	for name, values := range p.Header {
		c.Writer.Header()[name] = values
	}
	// Without the encoder's newline: every body of the API ends the same way.
	c.Data(p.Status, ContentType, bytes.TrimSuffix(buf.Bytes(), []byte("\n")))
}
