package api

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"

	"github.com/elimity-com/scim"
	scimerrors "github.com/elimity-com/scim/errors"
	"github.com/elimity-com/scim/optional"
	"github.com/elimity-com/scim/schema"
	"github.com/gin-gonic/gin"
	filter "github.com/scim2/filter-parser/v2"

	"github.com/earshot/earshot/internal/invalid"
	"github.com/earshot/earshot/warehouse/catalog"
)

// SCIM 2.0 provisioning of an organization's users (RFC 7643, 7644),
// for a client whose token has the scim scope. elimity-com/scim speaks the
// protocol — discovery, the User schema's validation, filters, paging,
// PATCH parsing, errors — and scimUsers maps its resources to the
// catalog's users: userName, name.givenName/familyName, the primary email,
// the primary phone number, active (not disabled), externalId (the
// user's SAML provider code).

// scimScope is the scope of a provisioning client's token.
const scimScope = "scim"

// newSCIM is the SCIM protocol server, mounted at /scim/v2.
func (s *Server) newSCIM() (http.Handler, error) {
	config := scim.ServiceProviderConfig{
		DocumentationURI: optional.NewString(s.opts.PublicURL + "/swagger/v1/swagger.json"),
		AuthenticationSchemes: []scim.AuthenticationScheme{{Type: scim.AuthenticationTypeOauthBearerToken, Name: "OAuth Bearer Token",
			Description: "A token of POST /connect/token (client credentials) with scope scim.", Primary: true}},
		MaxResults: maxPageSize, SupportFiltering: true, SupportPatch: true,
	}
	users := scim.ResourceType{ID: optional.NewString("User"), Name: "User", Endpoint: "/Users",
		Description: optional.NewString("User Account"), Schema: schema.CoreUserSchema(), Handler: scimUsers{s}}
	srv, err := scim.NewServer(&scim.ServerArgs{ServiceProviderConfig: &config, ResourceTypes: []scim.ResourceType{users}},
		scim.WithBaseURL(s.opts.PublicURL+"/scim/v2"))
	if err != nil {
		return nil, err
	}
	return http.StripPrefix("/scim", srv), nil
}

// scimHandler answers every SCIM route through the protocol server, the
// request made into what it reads (scimRequest) and, where the library
// says less or otherwise than RFC 7644, its answer rewritten
// (scimRewrite).
func (s *Server) scimHandler(c *gin.Context) {
	if err := scimRequest(c.Request); err != nil {
		c.Status(http.StatusBadRequest)
		return
	}
	rewrite := scimRewrite(c.Request)
	if rewrite == nil {
		s.scim.ServeHTTP(c.Writer, c.Request)
		return
	}
	rec := httptest.NewRecorder()
	s.scim.ServeHTTP(rec, c.Request)
	for k, vs := range rec.Header() {
		c.Writer.Header()[k] = vs
	}
	c.Writer.Header().Del("Content-Length") // the body changes
	body := rec.Body.Bytes()
	if rec.Code == http.StatusOK {
		body = rewrite(body)
	}
	c.Data(rec.Code, rec.Header().Get("Content-Type"), body)
}

// scimRewrite is how a request's successful answer is rewritten, or nil
// when it is not: a list of users gets its itemsPerPage (scimListBody);
// the ServiceProviderConfig says that ETags are supported (If-Match is
// checked), which the library cannot say.
func scimRewrite(r *http.Request) func([]byte) []byte {
	switch {
	case r.Method == http.MethodGet && strings.HasSuffix(r.URL.Path, "/Users"):
		return scimListBody
	case strings.HasSuffix(r.URL.Path, "/ServiceProviderConfig"):
		return scimWithETags
	}
	return nil
}

// scimWithETags is a ServiceProviderConfig that says ETags are supported.
func scimWithETags(body []byte) []byte {
	var config map[string]any
	if json.Unmarshal(body, &config) != nil {
		return body
	}
	config["etag"] = map[string]bool{"supported": true}
	out, err := json.Marshal(config)
	if err != nil {
		return body
	}
	return out
}

// scimUsers is the SCIM resource handler of the caller's organization's
// users.
type scimUsers struct{ s *Server }

// version is a user's entity tag: it changes with every change.
func version(u catalog.User) string {
	return `W/"` + strconv.FormatInt(u.ModifiedOn.UnixMicro(), 36) + `"`
}

// resource is a user as a SCIM resource.
func (scimUsers) resource(u catalog.User) scim.Resource {
	attrs := scim.ResourceAttributes{
		"userName": u.UserName,
		"name":     map[string]any{"givenName": u.FirstName, "familyName": u.LastName},
		"emails":   []any{map[string]any{"value": u.Email, "type": "work", "primary": true}},
		"active":   !u.Disabled,
	}
	if u.PhoneNumber != nil && *u.PhoneNumber != "" {
		attrs["phoneNumbers"] = []any{map[string]any{"value": *u.PhoneNumber, "type": "work", "primary": true}}
	}
	r := scim.Resource{ID: u.ID, Attributes: attrs, Meta: scim.Meta{Created: &u.CreatedOn, LastModified: &u.ModifiedOn, Version: version(u)}}
	if u.SAMLProviderUserCode != nil && *u.SAMLProviderUserCode != "" {
		r.ExternalID = optional.NewString(*u.SAMLProviderUserCode)
	}
	return r
}

// input reads a full set of SCIM attributes as a user's fields.
func (scimUsers) input(attrs scim.ResourceAttributes) (catalog.UserInput, error) {
	var in catalog.UserInput
	str := func(v any) *string {
		if s, ok := v.(string); ok {
			return &s
		}
		return nil
	}
	in.UserName = str(attrs["userName"])
	if name, ok := attrs["name"].(map[string]any); ok {
		in.FirstName, in.LastName = str(name["givenName"]), str(name["familyName"])
	}
	in.Email = primaryValue(attrs["emails"])
	in.PhoneNumber = primaryValue(attrs["phoneNumbers"])
	if in.PhoneNumber == nil {
		none := ""
		in.PhoneNumber = &none
	}
	external := ""
	if v := str(attrs["externalId"]); v != nil {
		external = *v
	}
	in.SAMLProviderUserCode = &external
	if active, ok := attrs["active"].(bool); ok {
		disabled := !active
		in.Disabled = &disabled
	}
	switch {
	case in.UserName == nil || strings.TrimSpace(*in.UserName) == "":
		return in, scimerrors.ScimErrorBadRequest("userName is required.")
	case in.FirstName == nil || in.LastName == nil:
		return in, scimerrors.ScimErrorBadRequest("name.givenName and name.familyName are required.")
	case in.Email == nil:
		return in, scimerrors.ScimErrorBadRequest("emails must hold the user's email address (the primary one, or the first).")
	}
	return in, nil
}

// primaryValue is the value of a multi-valued attribute's primary entry,
// else of its first.
func primaryValue(v any) *string {
	list, _ := v.([]any)
	var first *string
	for _, item := range list {
		m, _ := item.(map[string]any)
		value, ok := m["value"].(string)
		if !ok {
			continue
		}
		if primary, _ := m["primary"].(bool); primary {
			return &value
		}
		if first == nil {
			first = &value
		}
	}
	return first
}

// fail maps a catalog error to a SCIM one.
func (h scimUsers) fail(err error, id string) error {
	mistake, isMistake := invalid.As(err)
	switch {
	case isMistake && errors.Is(err, catalog.ErrExists):
		return scimerrors.ScimError{ScimType: scimerrors.ScimTypeUniqueness, Detail: mistake.Message, Status: http.StatusConflict}
	case isMistake:
		return scimerrors.ScimErrorBadRequest(mistake.Path + ": " + mistake.Message)
	case errors.Is(err, catalog.ErrNotFound):
		return scimerrors.ScimErrorResourceNotFound(id)
	}
	h.s.deps.Logger.Error("scim", "err", err)
	return err
}

func (h scimUsers) Create(r *http.Request, attrs scim.ResourceAttributes) (scim.Resource, error) {
	in, err := h.input(attrs)
	if err != nil {
		return scim.Resource{}, err
	}
	u, err := h.s.deps.People.CreateUser(r.Context(), orgIDOf(r), in)
	if err != nil {
		return scim.Resource{}, h.fail(err, "")
	}
	return h.resource(u), nil
}

func (h scimUsers) Get(r *http.Request, id string) (scim.Resource, error) {
	u, err := h.s.deps.People.User(r.Context(), orgIDOf(r), id)
	if err != nil {
		return scim.Resource{}, h.fail(err, id)
	}
	return h.resource(u), nil
}

// GetAll lists the users by id, filtered by the SCIM filter (any the
// User schema allows), paged by startIndex and count.
func (h scimUsers) GetAll(r *http.Request, params scim.ListRequestParams) (scim.Page, error) {
	users, err := h.s.deps.People.Users(r.Context(), orgIDOf(r), nil)
	if err != nil {
		return scim.Page{}, h.fail(err, "")
	}
	var matched []scim.Resource
	for _, u := range users {
		res := h.resource(u)
		if params.FilterValidator != nil {
			attrs := map[string]any{"id": res.ID}
			for k, v := range res.Attributes {
				attrs[k] = v
			}
			if res.ExternalID.Present() {
				attrs["externalId"] = res.ExternalID.Value()
			}
			if params.FilterValidator.PassesFilter(attrs) != nil {
				continue
			}
		}
		matched = append(matched, res)
	}
	page := scim.Page{TotalResults: len(matched), Resources: []scim.Resource{}}
	start := max(params.StartIndex, 1) - 1
	for i := start; i < len(matched) && len(page.Resources) < max(params.Count, 0); i++ {
		page.Resources = append(page.Resources, matched[i])
	}
	return page, nil
}

// current reads a user for a change, checking If-Match when given.
func (h scimUsers) current(r *http.Request, id string) (catalog.User, error) {
	u, err := h.s.deps.People.User(r.Context(), orgIDOf(r), id)
	if err != nil {
		return u, h.fail(err, id)
	}
	if match := r.Header.Get("If-Match"); match != "" && match != "*" && match != version(u) {
		return u, scimerrors.ScimError{Detail: "The user changed since the version in If-Match; read it again.", Status: http.StatusPreconditionFailed}
	}
	return u, nil
}

func (h scimUsers) Replace(r *http.Request, id string, attrs scim.ResourceAttributes) (scim.Resource, error) {
	if _, err := h.current(r, id); err != nil {
		return scim.Resource{}, err
	}
	in, err := h.input(attrs)
	if err != nil {
		return scim.Resource{}, err
	}
	u, err := h.s.deps.People.UpdateUser(r.Context(), orgIDOf(r), id, in)
	if err != nil {
		return scim.Resource{}, h.fail(err, id)
	}
	return h.resource(u), nil
}

func (h scimUsers) Delete(r *http.Request, id string) error {
	if _, err := h.current(r, id); err != nil {
		return err
	}
	if err := h.s.deps.People.DeleteUser(r.Context(), orgIDOf(r), id); err != nil {
		return h.fail(err, id)
	}
	return nil
}

// Patch applies the operations to the user's attributes, then saves them
// as a replacement would.
func (h scimUsers) Patch(r *http.Request, id string, operations []scim.PatchOperation) (scim.Resource, error) {
	u, err := h.current(r, id)
	if err != nil {
		return scim.Resource{}, err
	}
	res := h.resource(u)
	attrs := res.Attributes
	if res.ExternalID.Present() {
		attrs["externalId"] = res.ExternalID.Value()
	}
	for _, op := range operations {
		if err := applyPatch(attrs, op); err != nil {
			return scim.Resource{}, err
		}
	}
	in, err := h.input(attrs)
	if err != nil {
		return scim.Resource{}, err
	}
	if u, err = h.s.deps.People.UpdateUser(r.Context(), orgIDOf(r), id, in); err != nil {
		return scim.Resource{}, h.fail(err, id)
	}
	return h.resource(u), nil
}

// scimNames are the attributes Earshot keeps, by their lower-cased names.
var scimNames = map[string]string{"username": "userName", "name": "name", "emails": "emails", "phonenumbers": "phoneNumbers",
	"active": "active", "externalid": "externalId"}

// applyPatch applies one PATCH operation (RFC 7644 §3.5.2) to a user's
// attributes: with no path, a value object merged in; a path to an
// attribute or sub-attribute; a multi-valued attribute's entries chosen by
// "type eq …" or "primary eq true". Attributes Earshot does not keep are
// left alone.
func applyPatch(attrs map[string]any, op scim.PatchOperation) error {
	remove := strings.EqualFold(op.Op, scim.PatchOperationRemove)
	if op.Path == nil {
		values, ok := op.Value.(map[string]any)
		if !ok || remove {
			return scimerrors.ScimErrorBadRequest("an operation without a path needs an object value")
		}
		for k, v := range values {
			if strings.Contains(k, "[") {
				// A key that is a path with a value filter (Entra ID's
				// `emails[type eq "work"].value`): the operation of that path.
				p, err := filter.ParsePath([]byte(k))
				if err != nil {
					return scimerrors.ScimErrorBadRequest(fmt.Sprintf("the value's attribute %s is not a path: %v", k, err))
				}
				if err := applyPatch(attrs, scim.PatchOperation{Op: op.Op, Path: &p, Value: v}); err != nil {
					return err
				}
				continue
			}
			if sub, ok := v.(map[string]any); ok && scimNames[strings.ToLower(k)] == "name" {
				for sk, sv := range sub {
					setSub(attrs, "name", sk, sv)
				}
				continue
			}
			if name, kept := scimNames[strings.ToLower(k)]; kept {
				attrs[name] = v
			} else if sub, found := strings.CutPrefix(strings.ToLower(k), "name."); found {
				setSub(attrs, "name", sub, v)
			}
		}
		return nil
	}
	name, kept := scimNames[strings.ToLower(op.Path.AttributePath.AttributeName)]
	if !kept {
		return nil
	}
	switch {
	case op.Path.ValueExpression != nil:
		return patchEntries(attrs, name, op, remove)
	case op.Path.AttributePath.SubAttribute != nil:
		sub := *op.Path.AttributePath.SubAttribute
		if remove {
			if m, ok := attrs[name].(map[string]any); ok {
				delete(m, sub)
			}
			return nil
		}
		setSub(attrs, name, sub, op.Value)
	case remove:
		delete(attrs, name)
	default:
		attrs[name] = op.Value
	}
	return nil
}

func setSub(attrs map[string]any, name, sub string, v any) {
	m, ok := attrs[name].(map[string]any)
	if !ok {
		m = map[string]any{}
		attrs[name] = m
	}
	for k := range m {
		if strings.EqualFold(k, sub) {
			sub = k
		}
	}
	m[sub] = v
}

// patchEntries changes the entries of a multi-valued attribute its value
// filter chooses.
func patchEntries(attrs map[string]any, name string, op scim.PatchOperation, remove bool) error {
	expr, ok := op.Path.ValueExpression.(*filter.AttributeExpression)
	if !ok || expr.Operator != filter.EQ {
		return scimerrors.ScimErrorBadRequest(fmt.Sprintf("the path %s: Earshot chooses entries by \"type eq …\" or \"primary eq true\"", op.Path))
	}
	key := strings.ToLower(expr.AttributePath.AttributeName)
	matches := func(m map[string]any) bool {
		for k, v := range m {
			if strings.EqualFold(k, key) && fmt.Sprint(v) == fmt.Sprint(expr.CompareValue) {
				return true
			}
		}
		return false
	}
	list, _ := attrs[name].([]any)
	var out []any
	found := false
	for _, item := range list {
		m, _ := item.(map[string]any)
		if m == nil || !matches(m) {
			out = append(out, item)
			continue
		}
		found = true
		if remove {
			continue
		}
		if op.Path.SubAttribute != nil {
			m[*op.Path.SubAttribute] = op.Value
		} else if v, ok := op.Value.(map[string]any); ok {
			for k, x := range v {
				m[k] = x
			}
		}
		out = append(out, m)
	}
	if !found && !remove && op.Path.SubAttribute != nil {
		out = append(out, map[string]any{key: expr.CompareValue, *op.Path.SubAttribute: op.Value})
	}
	attrs[name] = out
	return nil
}
