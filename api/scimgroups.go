package api

import (
	"errors"
	"net/http"
	"strings"

	"github.com/elimity-com/scim"
	"github.com/elimity-com/scim/optional"
	"github.com/elimity-com/scim/schema"

	"github.com/earshot/earshot/warehouse/catalog"
)

// scimGroups is the SCIM resource handler of the caller's organization's
// groups: a display name, an external id and members, who are users.
// What a group grants its members is the organization's group mapping of
// its name (catalog.GroupMapping), set by the operator.
type scimGroups struct{ s *Server }

var groupSchemas = scimSchemas{core: schema.CoreGroupSchema()}

// resource is a group as a SCIM resource.
func (h scimGroups) resource(g catalog.Group) scim.Resource {
	members := []any{}
	for _, m := range g.Members {
		members = append(members, map[string]any{"value": m.UserID, "display": m.UserName, "type": "User",
			"$ref": h.s.opts.PublicURL + "/scim/v2/Users/" + m.UserID})
	}
	r := scim.Resource{ID: g.ID, Attributes: scim.ResourceAttributes{"displayName": g.DisplayName, "members": members},
		Meta: scim.Meta{Created: &g.CreatedOn, LastModified: &g.ModifiedOn, Version: scimVersion(g.ModifiedOn)}}
	if g.ExternalID != nil && *g.ExternalID != "" {
		r.ExternalID = optional.NewString(*g.ExternalID)
	}
	return r
}

// input reads a full set of a group's SCIM attributes; its members must
// be users.
func (scimGroups) input(attrs scim.ResourceAttributes) (catalog.GroupInput, error) {
	var in catalog.GroupInput
	in.DisplayName, _ = attrs["displayName"].(string)
	if external, ok := attrs["externalId"].(string); ok {
		in.ExternalID = &external
	}
	list, _ := attrs["members"].([]any)
	for _, item := range list {
		m, _ := item.(map[string]any)
		if kind, _ := m[keyOf(m, "type")].(string); kind != "" && !strings.EqualFold(kind, "User") {
			return in, scimBadRequest("members: an Earshot group holds users; a member of type " + kind + " cannot be added.")
		}
		value, ok := entryValue(item)
		if !ok {
			return in, scimBadRequest("members: each member needs the value of a user's id.")
		}
		in.Members = append(in.Members, value)
	}
	return in, nil
}

func (h scimGroups) Create(r *http.Request, attrs scim.ResourceAttributes) (scim.Resource, error) {
	in, err := h.input(attrs)
	if err != nil {
		return scim.Resource{}, err
	}
	g, err := h.s.deps.People.CreateGroup(r.Context(), orgIDOf(r), in)
	if err != nil {
		return scim.Resource{}, h.s.scimFail(err, "")
	}
	return h.resource(g), nil
}

func (h scimGroups) Get(r *http.Request, id string) (scim.Resource, error) {
	g, err := h.s.deps.People.Group(r.Context(), orgIDOf(r), id)
	if err != nil {
		return scim.Resource{}, h.s.scimFail(err, id)
	}
	return h.resource(g), nil
}

// GetAll lists the groups by id, filtered (displayName eq …, externalId
// eq …, members[value eq …] …) and paged.
func (h scimGroups) GetAll(r *http.Request, params scim.ListRequestParams) (scim.Page, error) {
	groups, err := h.s.deps.People.Groups(r.Context(), orgIDOf(r))
	if err != nil {
		return scim.Page{}, h.s.scimFail(err, "")
	}
	resources := make([]scim.Resource, len(groups))
	for i, g := range groups {
		resources[i] = h.resource(g)
	}
	return scimPage(resources, params), nil
}

// current reads a group for a change, checking If-Match when given.
func (h scimGroups) current(r *http.Request, id string) (catalog.Group, error) {
	g, err := h.s.deps.People.Group(r.Context(), orgIDOf(r), id)
	if err != nil {
		return g, h.s.scimFail(err, id)
	}
	return g, scimIfMatch(r, g.ModifiedOn)
}

// save replaces a group read at cur's version.
func (h scimGroups) save(r *http.Request, cur catalog.Group, attrs scim.ResourceAttributes) (scim.Resource, error) {
	in, err := h.input(attrs)
	if err != nil {
		return scim.Resource{}, err
	}
	g, err := h.s.deps.People.ReplaceGroup(r.Context(), orgIDOf(r), cur.ID, in, cur.ModifiedOn)
	if err != nil {
		return scim.Resource{}, h.s.scimFail(err, cur.ID)
	}
	return h.resource(g), nil
}

func (h scimGroups) Replace(r *http.Request, id string, attrs scim.ResourceAttributes) (scim.Resource, error) {
	cur, err := h.current(r, id)
	if err != nil {
		return scim.Resource{}, err
	}
	return h.save(r, cur, attrs)
}

func (h scimGroups) Delete(r *http.Request, id string) error {
	if _, err := h.current(r, id); err != nil {
		return err
	}
	if err := h.s.deps.People.DeleteGroup(r.Context(), orgIDOf(r), id); err != nil {
		return h.s.scimFail(err, id)
	}
	return nil
}

// scimPatchTries bounds how often a group's PATCH is applied again to a
// group another request changed meanwhile (membership changes of one
// group arrive together).
const scimPatchTries = 10

// Patch applies every operation to the group's attributes and saves them
// at the version read, again on a newer version while another change
// came first; without If-Match a PATCH is never lost to another.
func (h scimGroups) Patch(r *http.Request, id string, operations []scim.PatchOperation) (scim.Resource, error) {
	for try := 1; ; try++ {
		cur, err := h.current(r, id)
		if err != nil {
			return scim.Resource{}, err
		}
		res := h.resource(cur)
		attrs := res.Attributes
		if res.ExternalID.Present() {
			attrs["externalId"] = res.ExternalID.Value()
		}
		if err := applyPatches(attrs, operations, groupSchemas); err != nil {
			return scim.Resource{}, err
		}
		out, err := h.save(r, cur, attrs)
		if !errors.Is(err, errSCIMChanged) || try == scimPatchTries {
			return out, err
		}
	}
}
