package api

import (
	"encoding/json"
	"maps"
	"net/http"
	"slices"
	"strings"

	"github.com/elimity-com/scim"
	"github.com/elimity-com/scim/optional"
	"github.com/elimity-com/scim/schema"

	"github.com/earshot/earshot/api/oauth"
	"github.com/earshot/earshot/warehouse/catalog"
)

// scimUsers is the SCIM resource handler of the caller's organization's
// users. A user's catalog fields hold userName, name.givenName and
// familyName, the primary (else first) email and phone number, active (not
// disabled), externalId (the SAML provider code) and the password (the
// console's, never returned); every other attribute of the User schema and
// of the enterprise extension is kept as sent and returned as it was.
// groups is read from the groups the user is in.
type scimUsers struct{ s *Server }

var userSchemas = scimSchemas{core: schema.CoreUserSchema(), extensions: []schema.Schema{schema.ExtensionEnterpriseUser()}}

// scimUserFields are the attributes a user's own fields hold, or that are
// never kept.
var scimUserFields = []string{"id", "meta", "schemas", "userName", "active", "externalId", "password", "groups"}

// resource is a user, in its groups, as a SCIM resource.
func (h scimUsers) resource(u catalog.User, groups []catalog.Group) scim.Resource {
	attrs := scim.ResourceAttributes{}
	_ = json.Unmarshal(u.SCIMAttributes, &attrs) // written by input: always an object
	attrs["userName"] = u.UserName
	name, _ := attrs["name"].(map[string]any)
	if name == nil {
		name = map[string]any{}
	}
	for sub, v := range map[string]string{"givenName": u.FirstName, "familyName": u.LastName} {
		delete(name, keyOf(name, sub))
		if v != "" {
			name[sub] = v
		}
	}
	attrs["name"] = name
	if len(name) == 0 {
		delete(attrs, "name")
	}
	setPrimaryValue(attrs, "emails", u.Email)
	phone := ""
	if u.PhoneNumber != nil {
		phone = *u.PhoneNumber
	}
	setPrimaryValue(attrs, "phoneNumbers", phone)
	attrs["active"] = !u.Disabled
	if len(groups) > 0 {
		var list []any
		for _, g := range groups {
			list = append(list, map[string]any{"value": g.ID, "display": g.DisplayName, "type": "direct",
				"$ref": h.s.opts.PublicURL + "/scim/v2/Groups/" + g.ID})
		}
		attrs["groups"] = list
	}
	r := scim.Resource{ID: u.ID, Attributes: attrs, Meta: scim.Meta{Created: &u.CreatedOn, LastModified: &u.ModifiedOn,
		Version: scimVersion(u.ModifiedOn)}}
	if u.SAMLProviderUserCode != nil && *u.SAMLProviderUserCode != "" {
		r.ExternalID = optional.NewString(*u.SAMLProviderUserCode)
	}
	return r
}

// setPrimaryValue makes value the value of a multi-valued attribute's
// primary entry (else its first), adding a primary work entry when there
// is none, and removing that entry when value is empty.
func setPrimaryValue(attrs map[string]any, name, value string) {
	list, _ := attrs[name].([]any)
	at := -1
	for i, item := range list {
		m, _ := item.(map[string]any)
		if m == nil {
			continue
		}
		if primary, _ := m[keyOf(m, "primary")].(bool); primary {
			at = i
			break
		}
		if at < 0 {
			at = i
		}
	}
	switch {
	case value == "" && at >= 0:
		list = append(list[:at:at], list[at+1:]...)
	case value == "":
	case at >= 0:
		m := list[at].(map[string]any)
		m[keyOf(m, "value")] = value
	default:
		list = append([]any{map[string]any{"value": value, "type": "work", "primary": true}}, list...)
	}
	attrs[name] = list
	if len(list) == 0 {
		delete(attrs, name)
	}
}

// primaryValue is the value of a multi-valued attribute's primary entry,
// else of its first; "" when it has none.
func primaryValue(v any) string {
	list, _ := v.([]any)
	first := ""
	for _, item := range list {
		m, _ := item.(map[string]any)
		value, ok := m[keyOf(m, "value")].(string)
		if !ok {
			continue
		}
		if primary, _ := m[keyOf(m, "primary")].(bool); primary {
			return value
		}
		if first == "" {
			first = value
		}
	}
	return first
}

// scimUserInput is a full set of a user's SCIM attributes, read.
type scimUserInput struct {
	catalog.UserInput
	passwordHash string // "": no password given
}

// input reads a full set of SCIM attributes as a user's fields: only
// userName is required (RFC 7643).
func (scimUsers) input(attrs scim.ResourceAttributes) (scimUserInput, error) {
	var in scimUserInput
	str := func(v any) string {
		s, _ := v.(string)
		return s
	}
	userName := str(attrs["userName"])
	if strings.TrimSpace(userName) == "" {
		return in, scimBadRequest("userName is required.")
	}
	name, _ := attrs["name"].(map[string]any)
	given, family := str(name[keyOf(name, "givenName")]), str(name[keyOf(name, "familyName")])
	email, phone, external := primaryValue(attrs["emails"]), primaryValue(attrs["phoneNumbers"]), str(attrs["externalId"])
	if email != "" && !catalog.ValidEmail(email) {
		return in, scimBadRequest("emails: '" + email + "' is not an e-mail address.")
	}
	in.UserName, in.FirstName, in.LastName, in.Email, in.PhoneNumber, in.SAMLProviderUserCode =
		&userName, &given, &family, &email, &phone, &external
	if active, ok := attrs["active"].(bool); ok {
		disabled := !active
		in.Disabled = &disabled
	}
	if password := str(attrs["password"]); password != "" {
		hash, err := oauth.HashPassword(password)
		if err != nil {
			return in, scimBadRequest("password: " + err.Error() + ".")
		}
		in.passwordHash = hash
	}
	extra := maps.Clone(attrs)
	maps.DeleteFunc(extra, func(k string, v any) bool {
		return v == nil || slices.ContainsFunc(scimUserFields, func(own string) bool { return strings.EqualFold(k, own) })
	})
	raw, err := json.Marshal(extra)
	if err != nil {
		return in, err
	}
	in.SCIMAttributes = raw
	return in, nil
}

// withGroups is a user's resource with the groups it is in.
func (h scimUsers) withGroups(r *http.Request, u catalog.User) (scim.Resource, error) {
	groups, err := h.s.deps.People.UserGroups(r.Context(), orgIDOf(r), u.ID)
	if err != nil {
		return scim.Resource{}, h.s.scimFail(err, u.ID)
	}
	return h.resource(u, groups), nil
}

// save writes a user's attributes: a new user when id is "".
func (h scimUsers) save(r *http.Request, id string, attrs scim.ResourceAttributes) (scim.Resource, error) {
	in, err := h.input(attrs)
	if err != nil {
		return scim.Resource{}, err
	}
	ctx, org := r.Context(), orgIDOf(r)
	var u catalog.User
	if id == "" {
		u, err = h.s.deps.People.CreateUser(ctx, org, in.UserInput)
	} else {
		u, err = h.s.deps.People.UpdateUser(ctx, org, id, in.UserInput)
	}
	if err != nil {
		return scim.Resource{}, h.s.scimFail(err, id)
	}
	if in.passwordHash != "" {
		if err := h.s.deps.People.SetPassword(ctx, org, u.ID, in.passwordHash); err != nil {
			return scim.Resource{}, h.s.scimFail(err, u.ID)
		}
	}
	return h.withGroups(r, u)
}

func (h scimUsers) Create(r *http.Request, attrs scim.ResourceAttributes) (scim.Resource, error) {
	return h.save(r, "", attrs)
}

func (h scimUsers) Get(r *http.Request, id string) (scim.Resource, error) {
	u, err := h.s.deps.People.User(r.Context(), orgIDOf(r), id)
	if err != nil {
		return scim.Resource{}, h.s.scimFail(err, id)
	}
	return h.withGroups(r, u)
}

// GetAll lists the users by id, filtered by the SCIM filter (any the
// User schema allows), paged by startIndex and count.
func (h scimUsers) GetAll(r *http.Request, params scim.ListRequestParams) (scim.Page, error) {
	users, err := h.s.deps.People.Users(r.Context(), orgIDOf(r), nil)
	if err != nil {
		return scim.Page{}, h.s.scimFail(err, "")
	}
	groups, err := h.s.deps.People.Groups(r.Context(), orgIDOf(r))
	if err != nil {
		return scim.Page{}, h.s.scimFail(err, "")
	}
	of := map[string][]catalog.Group{}
	for _, g := range groups {
		for _, m := range g.Members {
			of[m.UserID] = append(of[m.UserID], g)
		}
	}
	resources := make([]scim.Resource, len(users))
	for i, u := range users {
		resources[i] = h.resource(u, of[u.ID])
	}
	return scimPage(resources, params), nil
}

// current reads a user for a change, checking If-Match when given.
func (h scimUsers) current(r *http.Request, id string) (catalog.User, error) {
	u, err := h.s.deps.People.User(r.Context(), orgIDOf(r), id)
	if err != nil {
		return u, h.s.scimFail(err, id)
	}
	return u, scimIfMatch(r, u.ModifiedOn)
}

func (h scimUsers) Replace(r *http.Request, id string, attrs scim.ResourceAttributes) (scim.Resource, error) {
	if _, err := h.current(r, id); err != nil {
		return scim.Resource{}, err
	}
	return h.save(r, id, attrs)
}

func (h scimUsers) Delete(r *http.Request, id string) error {
	if _, err := h.current(r, id); err != nil {
		return err
	}
	if err := h.s.deps.People.DeleteUser(r.Context(), orgIDOf(r), id); err != nil {
		return h.s.scimFail(err, id)
	}
	return nil
}

// Patch applies every operation to the user's attributes, then saves them
// as a replacement would: all of them, or none.
func (h scimUsers) Patch(r *http.Request, id string, operations []scim.PatchOperation) (scim.Resource, error) {
	u, err := h.current(r, id)
	if err != nil {
		return scim.Resource{}, err
	}
	res := h.resource(u, nil)
	attrs := res.Attributes
	if res.ExternalID.Present() {
		attrs["externalId"] = res.ExternalID.Value()
	}
	if err := applyPatches(attrs, operations, userSchemas); err != nil {
		return scim.Resource{}, err
	}
	return h.save(r, id, attrs)
}
