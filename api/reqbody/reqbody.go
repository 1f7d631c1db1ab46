// Package reqbody reads JSON request bodies the way the contract wants them
// read: keys match case-insensitively (FileName = fileName), every field is
// checked for its type, and all problems are reported at once, each under
// the field's contract name.
package reqbody

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/gin-gonic/gin"
	"github.com/google/uuid"

	"github.com/earshot/earshot/api/problem"
	"github.com/earshot/earshot/internal/contract/dates"
)

// MaxBytes bounds a JSON request body.
const MaxBytes = 1 << 20

// Object is a decoded JSON object and the field errors found so far.
type Object struct {
	fields map[string]json.RawMessage // lower-cased key → value
	errs   map[string][]string
}

// Read decodes the request body as a JSON object, or returns the problem
// to answer with.
func Read(c *gin.Context) (*Object, *problem.Problem) {
	tooLarge := problem.New(http.StatusRequestEntityTooLarge, fmt.Sprintf("The request body must be at most %d bytes.", MaxBytes))
	if c.Request.ContentLength > MaxBytes {
		return nil, tooLarge // declared: answered before any of it is read
	}
	data, err := io.ReadAll(http.MaxBytesReader(c.Writer, c.Request.Body, MaxBytes))
	var tooBig *http.MaxBytesError
	switch {
	case errors.As(err, &tooBig):
		return nil, tooLarge
	case err != nil:
		return nil, problem.New(http.StatusBadRequest, "The request body was cut off or came in too slowly; send it again.")
	}
	o, err := Parse(data)
	if err != nil {
		return nil, problem.Field("body", err.Error(), "The request body must be a JSON object: "+err.Error())
	}
	return o, nil
}

// Parse decodes data as a JSON object.
func Parse(data []byte) (*Object, error) {
	var raw map[string]json.RawMessage
	dec := json.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&raw); err != nil || raw == nil {
		return nil, fmt.Errorf("not a JSON object")
	}
	if dec.More() {
		return nil, fmt.Errorf("unexpected data after the JSON object")
	}
	o := &Object{fields: map[string]json.RawMessage{}, errs: map[string][]string{}}
	for k, v := range raw {
		o.fields[strings.ToLower(k)] = v
	}
	return o, nil
}

// Fail records a problem with a field.
func (o *Object) Fail(field, message string) {
	o.errs[field] = append(o.errs[field], message)
}

// Has tells whether the field is present and not null.
func (o *Object) Has(field string) bool {
	v, ok := o.fields[strings.ToLower(field)]
	return ok && string(bytes.TrimSpace(v)) != "null"
}

func (o *Object) decode(field string, dst any, want string) bool {
	if !o.Has(field) {
		return false
	}
	if err := json.Unmarshal(o.fields[strings.ToLower(field)], dst); err != nil {
		o.Fail(field, "must be "+want+".")
		return false
	}
	return true
}

// String reads an optional string (nil when absent or null), at most 1000
// characters.
func (o *Object) String(field string) *string {
	var s string
	if !o.decode(field, &s, "a string") {
		return nil
	}
	if len(s) > 1000 {
		o.Fail(field, "must be at most 1000 characters.")
		return nil
	}
	return &s
}

// Required reads a string that must be present and not blank.
func (o *Object) Required(field string) *string {
	s := o.String(field)
	if s == nil || strings.TrimSpace(*s) == "" {
		if _, failed := o.errs[field]; !failed {
			o.Fail(field, "is required.")
		}
		return nil
	}
	t := strings.TrimSpace(*s)
	return &t
}

// NotBlank reads an optional string that, when given, must not be blank.
func (o *Object) NotBlank(field string) *string {
	s := o.String(field)
	if s != nil {
		if t := strings.TrimSpace(*s); t == "" {
			o.Fail(field, "must not be blank.")
			return nil
		} else {
			return &t
		}
	}
	return s
}

// Strings reads an optional array of strings.
func (o *Object) Strings(field string) *[]string {
	var list []string
	if !o.decode(field, &list, "an array of strings") {
		return nil
	}
	if list == nil {
		list = []string{}
	}
	return &list
}

// GUIDs reads an optional array of GUIDs.
func (o *Object) GUIDs(field string) *[]string {
	list := o.Strings(field)
	if list == nil {
		return nil
	}
	out := make([]string, len(*list))
	for i, s := range *list {
		id, err := uuid.Parse(s)
		if err != nil {
			o.Fail(field, fmt.Sprintf("item %d is not a GUID.", i))
			return nil
		}
		out[i] = id.String()
	}
	return &out
}

// Bool reads an optional boolean (true/false, or the strings "true"/"false").
func (o *Object) Bool(field string) *bool {
	if !o.Has(field) {
		return nil
	}
	var b bool
	if err := json.Unmarshal(o.fields[strings.ToLower(field)], &b); err == nil {
		return &b
	}
	var s string
	if err := json.Unmarshal(o.fields[strings.ToLower(field)], &s); err == nil {
		switch strings.ToLower(s) {
		case "true":
			b = true
			return &b
		case "false":
			return &b
		}
	}
	o.Fail(field, "must be true or false.")
	return nil
}

// Date reads an optional date in one of the accepted forms.
func (o *Object) Date(field string) *time.Time { return o.date(field, dates.Parse) }

// EndDate reads an optional end of a range: a date-only value is the end
// of that day.
func (o *Object) EndDate(field string) *time.Time { return o.date(field, dates.ParseEnd) }

func (o *Object) date(field string, parse func(string) (time.Time, error)) *time.Time {
	s := o.String(field)
	if s == nil {
		return nil
	}
	t, err := parse(*s)
	if err != nil {
		o.Fail(field, "must be a date such as "+dates.Accepted+".")
		return nil
	}
	return &t
}

// GUID reads an optional GUID, normalized to lower case.
func (o *Object) GUID(field string) *string {
	s := o.String(field)
	if s == nil {
		return nil
	}
	id, err := uuid.Parse(*s)
	if err != nil {
		o.Fail(field, "must be a GUID.")
		return nil
	}
	v := id.String()
	return &v
}

// Remove is the value that unlinks a reference (userId, managerId,
// newParentId).
const Remove = "remove"

// GUIDOrRemove reads an optional GUID or the word "remove", which it
// returns as "".
func (o *Object) GUIDOrRemove(field string) *string {
	s := o.String(field)
	if s != nil && strings.EqualFold(*s, Remove) {
		empty := ""
		return &empty
	}
	if s == nil {
		return nil
	}
	return o.GUID(field)
}

// Kind tells the JSON type of a present field: "string", "number",
// "array", "object" or "bool"; "" when absent or null.
func (o *Object) Kind(field string) string {
	if !o.Has(field) {
		return ""
	}
	v := bytes.TrimSpace(o.fields[strings.ToLower(field)])
	switch {
	case v[0] == '"':
		return "string"
	case v[0] == '[':
		return "array"
	case v[0] == '{':
		return "object"
	case v[0] == 't' || v[0] == 'f':
		return "bool"
	}
	return "number"
}

// Decode reads a field into dst, failing it when the JSON does not fit.
func (o *Object) Decode(field string, dst any) bool {
	return o.decode(field, dst, "a value of the right type")
}

// ScalarMap reads an optional object of string keys to scalar values, kept
// as strings (numbers as written, booleans as true/false, null as "").
func (o *Object) ScalarMap(field string) map[string]string {
	var raw map[string]json.RawMessage
	if !o.decode(field, &raw, "an object of string keys to scalar values") {
		return nil
	}
	out := map[string]string{}
	for k, v := range raw {
		var x any
		dec := json.NewDecoder(bytes.NewReader(v))
		dec.UseNumber()
		if dec.Decode(&x) != nil {
			continue
		}
		switch t := x.(type) {
		case nil:
			out[k] = ""
		case string:
			out[k] = t
		case json.Number:
			out[k] = t.String()
		case bool:
			out[k] = fmt.Sprint(t)
		default:
			o.Fail(field, fmt.Sprintf("the value of %q must be a string, number or boolean.", k))
		}
	}
	return out
}

// Text reads a field as a query parameter would carry it (bodies that
// repeat a GET's parameters): a string as it is, a number or boolean as
// written, an array of strings as CSV. ok is false when the field is
// absent or null; a field of another kind fails.
func (o *Object) Text(field string) (string, bool) {
	if !o.Has(field) {
		return "", false
	}
	raw := o.fields[strings.ToLower(field)]
	var s string
	var list []string
	var n json.Number
	var b bool
	switch {
	case json.Unmarshal(raw, &s) == nil:
		return s, true
	case json.Unmarshal(raw, &list) == nil:
		return strings.Join(list, ","), true
	case json.Unmarshal(raw, &n) == nil:
		return n.String(), true
	case json.Unmarshal(raw, &b) == nil:
		return fmt.Sprint(b), true
	}
	o.Fail(field, "must be a string, a number, a boolean or an array of strings.")
	return "", false
}

// Problem is the 400 to answer with when any field failed, else nil.
func (o *Object) Problem() *problem.Problem {
	if len(o.errs) == 0 {
		return nil
	}
	return problem.Invalid(o.errs)
}
