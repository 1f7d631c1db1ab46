package api

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/gin-gonic/gin"
	"github.com/google/uuid"

	"github.com/earshot/earshot/api/problem"
	"github.com/earshot/earshot/internal/contract/dates"
	"github.com/earshot/earshot/warehouse/catalog"
)

// Page sizes of every paged operation (CONTRACT §1).
const (
	defaultPageSize = 100
	maxPageSize     = 1000
)

// paramReader reads a request parameter by its contract name, in any
// casing: from the query string, or from a JSON body (POST
// /Conversations/Insights: reqbody.Object.Text, lists as arrays or CSV).
type paramReader func(name string) (string, bool)

func queryParams(c *gin.Context) paramReader {
	return func(name string) (string, bool) { return query(c, name) }
}

// fieldErrors gathers validation messages by parameter.
type fieldErrors map[string][]string

func (e fieldErrors) add(param, message string) { e[param] = append(e[param], message) }

// pageSize reads a page size: 1 to maxPageSize, default defaultPageSize.
func (e fieldErrors) pageSize(get paramReader, name string) int {
	return e.boundedPageSize(get, name, defaultPageSize, maxPageSize)
}

// boundedPageSize reads a page size of an operation with bounds of its
// own (the vendor's): 1 to most, def when absent.
func (e fieldErrors) boundedPageSize(get paramReader, name string, def, most int) int {
	v, ok := get(name)
	if !ok {
		return def
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 1 || n > most {
		e.add(name, fmt.Sprintf("must be a whole number from 1 to %d.", most))
	}
	return n
}

// choice reads an optional value among allowed (any casing), in its
// canonical casing; "" when absent or wrong (then named).
func (e fieldErrors) choice(get paramReader, name string, allowed ...string) string {
	v, ok := get(name)
	if !ok || v == "" {
		return ""
	}
	canonical := oneOf(v, allowed)
	if canonical == "" {
		e.add(name, "must be "+strings.Join(allowed[:len(allowed)-1], ", ")+" or "+allowed[len(allowed)-1]+".")
	}
	return canonical
}

// window reads StartDate and EndDate, both required (a date-only end is
// the end of its day), the end not before the start; nil when one is
// missing or wrong.
func (e fieldErrors) window(get paramReader) (from, to *time.Time) {
	from, to = e.date(get, "StartDate", false), e.date(get, "EndDate", true)
	for name, t := range map[string]*time.Time{"StartDate": from, "EndDate": to} {
		if v, _ := get(name); t == nil && v == "" {
			e.add(name, "is required.")
		}
	}
	if from == nil || to == nil {
		return nil, nil
	}
	if to.Before(*from) {
		e.add("EndDate", "must not be before StartDate.")
	}
	return from, to
}

// guid reads an optional GUID (a keyset cursor).
func (e fieldErrors) guid(get paramReader, name string) string {
	v, ok := get(name)
	if !ok || v == "" {
		return ""
	}
	id, err := uuid.Parse(v)
	if err != nil {
		e.add(name, "must be a GUID.")
		return ""
	}
	return id.String()
}

// guids reads a CSV of GUIDs, each once in its canonical form; nil when
// absent or empty.
func (e fieldErrors) guids(get paramReader, name string) []string {
	list := csv(get(name))
	if list == nil {
		return nil
	}
	out := make([]string, 0, len(list))
	for _, v := range list {
		id, err := uuid.Parse(v)
		if err != nil {
			e.add(name, "must be GUIDs separated by commas; "+strconv.Quote(v)+" is not one.")
			return nil // the first bad one is named: a hostile list may be long
		}
		out = append(out, id.String())
	}
	return listed(out) // once each, whatever the casing they came in
}

// date reads a date (end: a date-only value is the end of that day).
func (e fieldErrors) date(get paramReader, name string, end bool) *time.Time {
	v, ok := get(name)
	if !ok || v == "" {
		return nil
	}
	parse := dates.Parse
	if end {
		parse = dates.ParseEnd
	}
	t, err := parse(v)
	if err != nil {
		e.add(name, "must be a date such as "+dates.Accepted+".")
		return nil
	}
	t = t.UTC()
	return &t
}

// boolean reads an optional true/false.
func (e fieldErrors) boolean(get paramReader, name string, def bool) bool {
	v, ok := get(name)
	if !ok || v == "" {
		return def
	}
	switch strings.ToLower(v) {
	case "true":
		return true
	case "false":
		return false
	}
	e.add(name, "must be true or false.")
	return def
}

// values reads a CSV of values among allowed (any casing), in their
// canonical casing; nil when absent.
func (e fieldErrors) values(get paramReader, name string, allowed []string) []string {
	list := csv(get(name))
	if list == nil {
		return nil
	}
	out := []string{}
	for _, v := range list {
		canonical := oneOf(v, allowed)
		if canonical == "" {
			e.add(name, "must list values among "+strings.Join(allowed, ", ")+"; "+strconv.Quote(v)+" is not one.")
			return nil // the first bad one is named: a hostile list may be long
		}
		out = append(out, canonical)
	}
	return out
}

// subtrees expands hierarchy nodes, named by id or by code, to the nodes
// and every node below them; nil when neither names any.
func (e fieldErrors) subtrees(tree *catalog.Tree, idParam string, ids []string, codeParam string, codes []string) []string {
	if ids == nil && codes == nil {
		return nil
	}
	seen := map[string]bool{}
	out := []string{}
	add := func(id string) {
		for _, d := range tree.Descendants(id) {
			if !seen[d] {
				seen[d] = true
				out = append(out, d)
			}
		}
	}
	// The first unknown one of each list is named: a hostile list may be long.
	for _, id := range ids {
		if _, ok := tree.Node(id); !ok {
			e.add(idParam, strconv.Quote(id)+" is not a hierarchy node of your organization.")
			break
		}
		add(id)
	}
	for _, code := range codes {
		n, ok := tree.ByCode(code)
		if !ok {
			e.add(codeParam, strconv.Quote(code)+" is not a hierarchy code of your organization.")
			break
		}
		add(n.ID)
	}
	return out
}

// problem is the 400 of the gathered messages, or nil.
func (e fieldErrors) problem() *problem.Problem {
	if len(e) == 0 {
		return nil
	}
	return problem.Invalid(e)
}

// oneOf is the allowed value v names in any casing, "" when none.
func oneOf(v string, allowed []string) string {
	for _, a := range allowed {
		if strings.EqualFold(v, a) {
			return a
		}
	}
	return ""
}

// csv splits a comma-separated parameter into its values (see listed);
// nil when the parameter is absent.
func csv(v string, ok bool) []string {
	if !ok {
		return nil
	}
	return listed(strings.Split(v, ","))
}

// listed is a list parameter's non-blank values, each once; nil when it
// lists nothing: an empty list is no filter (CONTRACT §1).
func listed(values []string) []string {
	var out []string
	seen := map[string]bool{} // a set: a hostile list may be long
	for _, v := range values {
		if v = strings.TrimSpace(v); v != "" && !seen[v] {
			seen[v] = true
			out = append(out, v)
		}
	}
	return out
}

// visibleNodes expands hierarchy nodes named by id or by code to their
// subtrees (naming an unknown one in errs), cut to what the caller may
// read, with the caller's scope (nil: the whole organization).
func (s *shared) visibleNodes(ctx context.Context, org string, errs fieldErrors, idParam string, ids []string, codeParam string, codes []string) ([]string, catalog.Scope, error) {
	scope := reads(ctx)
	if ids == nil && codes == nil {
		return scope.Narrow(nil), scope, nil
	}
	tree, err := s.deps.People.Hierarchy(ctx, org)
	if err != nil {
		return nil, nil, err
	}
	return scope.Narrow(errs.subtrees(tree, idParam, ids, codeParam, codes)), scope, nil
}
