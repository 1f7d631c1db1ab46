package api

import (
	"context"
	"errors"
	"net/http"
	"slices"
	"strconv"

	"github.com/gin-gonic/gin"
	"github.com/google/uuid"

	"github.com/earshot/earshot/api/problem"
	"github.com/earshot/earshot/warehouse/catalog"
)

// The /UserHierarchy operations: a user's access level and media
// permissions on hierarchy nodes. A grant holds on its node and every node
// below it, up to a node with the user's own grant. What a user may read
// follows from them wherever a client acts for the user (X-Earshot-User).

// userHierarchyItem is a node with the user's access on it.
type userHierarchyItem struct {
	HierarchyID        string   `json:"hierarchyId"`
	HierarchyName      string   `json:"hierarchyName"`
	HierarchyIsActive  bool     `json:"hierarchyIsActive"`
	AccessLevel        *string  `json:"accessLevel"` // null where the user has none
	Permissions        []string `json:"permissions"`
	StructureLevelName string   `json:"structureLevelName"`
}

// userAccess is a user's grants over the organization's tree.
type userAccess struct {
	tree   *catalog.Tree
	grants []catalog.Grant
}

func (a userAccess) item(n catalog.Node) userHierarchyItem {
	item := userHierarchyItem{HierarchyID: n.ID, HierarchyName: n.Name, HierarchyIsActive: n.IsActive, Permissions: []string{},
		StructureLevelName: "Level " + strconv.Itoa(a.tree.Depth(n.ID)+1)}
	if g, ok := catalog.Effective(a.tree, a.grants, n.ID); ok {
		item.AccessLevel, item.Permissions = &g.AccessLevel, g.Permissions
	}
	return item
}

// loadUserAccess reads the user's grants and the tree; the user must be
// the organization's (ErrNotFound otherwise).
func (s *peopleAPI) loadUserAccess(ctx context.Context, org, userID string) (userAccess, error) {
	if _, err := uuid.Parse(userID); err != nil {
		return userAccess{}, catalog.ErrNotFound
	}
	if _, err := s.deps.People.User(ctx, org, userID); err != nil {
		return userAccess{}, err
	}
	tree, err := s.deps.People.Hierarchy(ctx, org)
	if err != nil {
		return userAccess{}, err
	}
	grants, err := s.deps.People.Grants(ctx, org, userID)
	return userAccess{tree: tree, grants: grants}, err
}

const unknownUser = "No user with this id exists in your organization."

// readUserAccess reads the access of the path's user for the vendor's two
// GETs, which answer 400 (not 404) for an unknown user.
func (s *peopleAPI) readUserAccess(c *gin.Context) (userAccess, error) {
	access, err := s.loadUserAccess(c.Request.Context(), orgID(c), c.Param("userId"))
	switch {
	case errors.Is(err, catalog.ErrNotFound):
		return access, problem.New(http.StatusBadRequest, unknownUser)
	case err != nil:
		return access, err
	}
	return access, nil
}

// getUserHierarchy is GET /UserHierarchy/{UserId}/{HierarchyId}: the node
// and the nodes below it on which the user has access. The vendor answers
// 400 (not 404) for an unknown user or node, and for a user without
// access there.
func (s *peopleAPI) getUserHierarchy(c *gin.Context) error {
	access, err := s.readUserAccess(c)
	if err != nil {
		return err
	}
	if _, ok := access.tree.Node(c.Param("hierarchyId")); !ok {
		return problem.New(http.StatusBadRequest, "No hierarchy node with this id exists in your organization.")
	}
	items := []userHierarchyItem{}
	for _, id := range access.tree.Descendants(c.Param("hierarchyId")) {
		n, _ := access.tree.Node(id)
		if item := access.item(n); item.AccessLevel != nil {
			items = append(items, item)
		}
	}
	if len(items) == 0 {
		return problem.New(http.StatusBadRequest, "The user has no permissions in this hierarchy node or below it.")
	}
	c.JSON(http.StatusOK, items)
	return nil
}

// listUserHierarchy is GET /UserHierarchy/{UserId}/All: every node (active
// or inactive ones with IsActive) with the user's access on it.
func (s *peopleAPI) listUserHierarchy(c *gin.Context) error {
	active, err := boolQuery(c, "IsActive")
	if err != nil {
		return err
	}
	access, err := s.readUserAccess(c)
	if err != nil {
		return err
	}
	items := []userHierarchyItem{}
	for _, root := range access.tree.Children("") {
		for _, id := range access.tree.Descendants(root.ID) {
			if n, _ := access.tree.Node(id); active == nil || n.IsActive == *active {
				items = append(items, access.item(n))
			}
		}
	}
	c.JSON(http.StatusOK, items)
	return nil
}

// putUserHierarchy is PUT /UserHierarchy/{UserId}/{HierarchyId}: the
// user's own grant on the node; an empty permissions list removes it.
func (s *peopleAPI) putUserHierarchy(c *gin.Context) error {
	node, err := pathGUID(c, "hierarchyId")
	if err != nil {
		return err
	}
	body, err := readBody(c)
	if err != nil {
		return err
	}
	var permissions []string
	list := body.Strings("permissions")
	if !body.Has("permissions") {
		body.Fail("permissions", "is required: a list of Audio, Email, Chat, Video or Live ([] removes the user's permissions here).")
	}
	for _, p := range deref(list) {
		canonical := oneOf(p, catalog.MediaPermissions)
		if canonical == "" {
			body.Fail("permissions", strconv.Quote(p)+" is not a permission; use Audio, Email, Chat, Video or Live.")
			break
		}
		if !slices.Contains(permissions, canonical) {
			permissions = append(permissions, canonical)
		}
	}
	level := ""
	if v := body.String("accessLevel"); v != nil && *v != "" {
		if level = oneOf(*v, catalog.AccessLevels); level == "" {
			body.Fail("accessLevel", "must be View, Edit or Manage.")
		}
	} else if len(permissions) > 0 {
		body.Fail("accessLevel", "is required with permissions: View, Edit or Manage.")
	}
	if p := body.Problem(); p != nil {
		return p
	}
	ctx, org, user := c.Request.Context(), orgID(c), c.Param("userId")
	if _, err := uuid.Parse(user); err != nil {
		return problem.New(http.StatusNotFound, unknownUser)
	}
	if err := s.deps.People.SetGrant(ctx, org, user, node, level, permissions); err != nil {
		return missing(err, "No user or hierarchy node with these ids exists in your organization.")
	}
	access, err := s.loadUserAccess(ctx, org, user)
	if err != nil {
		return err
	}
	n, _ := access.tree.Node(node)
	c.JSON(http.StatusOK, access.item(n))
	return nil
}
