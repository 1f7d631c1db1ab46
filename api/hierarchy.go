package api

import (
	"context"
	"net/http"
	"strconv"

	"github.com/gin-gonic/gin"

	"github.com/earshot/earshot/api/problem"
	"github.com/earshot/earshot/api/reqbody"
	"github.com/earshot/earshot/internal/contract/dates"
	"github.com/earshot/earshot/warehouse/catalog"
)

// contactView names a contact user.
type contactView struct {
	UserName string `json:"userName"`
	UserID   string `json:"userId"`
}

// nodeView is a hierarchy node as CONTRACT §9 shapes it: Children in the
// tree (GET /Hierarchy/All), ParentID in the flat list (GET /Hierarchy).
type nodeView struct {
	ID                     string          `json:"id"`
	ParentID               *string         `json:"parentId,omitempty"`
	IsActive               bool            `json:"isActive"`
	Name                   string          `json:"name"`
	StructureLevelName     string          `json:"structureLevelName"`
	Category               *string         `json:"category"`
	SubCategory            *string         `json:"subCategory"`
	Code                   *string         `json:"code"`
	ModifiedOn             dates.Timestamp `json:"modifiedOn"`
	AdministrativeContacts []contactView   `json:"administrativeContacts"`
	EscalationContacts     []contactView   `json:"escalationContacts"`
	ManagerContacts        []contactView   `json:"managerContacts"`
	HierarchyCodes         []string        `json:"hierarchyCodes"`
	Children               *[]nodeView     `json:"children,omitempty"`
}

const nodeNotFound = "No hierarchy node with this id exists in your organization."

// nodeViews builds views of a tree's nodes with contacts resolved to names.
type nodeViews struct {
	tree  *catalog.Tree
	users map[string]catalog.User
}

func (s *peopleAPI) newNodeViews(ctx context.Context, org string) (*nodeViews, error) {
	tree, err := s.deps.People.Hierarchy(ctx, org)
	if err != nil {
		return nil, err
	}
	users, err := s.deps.People.Users(ctx, org, nil)
	if err != nil {
		return nil, err
	}
	byID := make(map[string]catalog.User, len(users))
	for _, u := range users {
		byID[u.ID] = u
	}
	return &nodeViews{tree: tree, users: byID}, nil
}

func (nv *nodeViews) contacts(ids []string) []contactView {
	out := []contactView{}
	for _, id := range ids {
		out = append(out, contactView{UserName: nv.users[id].UserName, UserID: id})
	}
	return out
}

func (nv *nodeViews) view(n catalog.Node) nodeView {
	codes := n.HierarchyCodes
	if codes == nil {
		codes = []string{}
	}
	return nodeView{
		ID: n.ID, IsActive: n.IsActive, Name: n.Name,
		// Levels are named by depth: Level 1 is the top.
		StructureLevelName: "Level " + strconv.Itoa(nv.tree.Depth(n.ID)+1),
		Category:           n.Category, SubCategory: n.SubCategory, Code: n.Code, ModifiedOn: dates.Timestamp(n.ModifiedOn),
		AdministrativeContacts: nv.contacts(n.AdministrativeContacts), EscalationContacts: nv.contacts(n.EscalationContacts),
		ManagerContacts: nv.contacts(n.ManagerContacts), HierarchyCodes: codes,
	}
}

// subtree builds the views below parent, keeping only nodes that pass
// keep; the children of a dropped node move up to its nearest kept
// ancestor, so nothing kept is lost from the tree.
func (nv *nodeViews) subtree(parent string, keep func(catalog.Node) bool) []nodeView {
	out := []nodeView{}
	for _, n := range nv.tree.Children(parent) {
		kids := nv.subtree(n.ID, keep)
		if !keep(n) {
			out = append(out, kids...)
			continue
		}
		v := nv.view(n)
		v.Children = &kids
		out = append(out, v)
	}
	return out
}

// hierarchyRequest reads the IsActive filter and the views of the caller's
// hierarchy; the error to answer when either fails.
func (s *peopleAPI) hierarchyRequest(c *gin.Context) (*nodeViews, func(catalog.Node) bool, error) {
	active, err := boolQuery(c, "IsActive")
	if err != nil {
		return nil, nil, err
	}
	nv, err := s.newNodeViews(c.Request.Context(), orgID(c))
	if err != nil {
		return nil, nil, missing(err, "")
	}
	return nv, func(n catalog.Node) bool { return active == nil || n.IsActive == *active }, nil
}

// hierarchyTree is GET /Hierarchy/All?IsActive=: the tree; 404 when empty.
func (s *peopleAPI) hierarchyTree(c *gin.Context) error {
	nv, keep, err := s.hierarchyRequest(c)
	if err != nil {
		return err
	}
	roots := nv.subtree("", keep)
	if len(roots) == 0 {
		return problem.New(http.StatusNotFound, "Your organization has no hierarchy nodes that match.")
	}
	c.JSON(http.StatusOK, roots)
	return nil
}

// hierarchyList is GET /Hierarchy: every node, flat, with parentId.
func (s *peopleAPI) hierarchyList(c *gin.Context) error {
	nv, keep, err := s.hierarchyRequest(c)
	if err != nil {
		return err
	}
	out := []nodeView{}
	for _, root := range nv.tree.Children("") {
		for _, id := range nv.tree.Descendants(root.ID) {
			n, _ := nv.tree.Node(id)
			if keep(n) {
				v := nv.view(n)
				v.ParentID = n.ParentID
				out = append(out, v)
			}
		}
	}
	c.JSON(http.StatusOK, out)
	return nil
}

// readNodeInput reads the fields POST and PUT share.
func readNodeInput(body *reqbody.Object, in *catalog.NodeInput) {
	in.Category = body.String("category")
	in.SubCategory = body.String("subCategory")
	in.Code = body.String("code")
	in.AdministrativeContacts = body.GUIDs("administrativeContactsUserIds")
	in.EscalationContacts = body.GUIDs("escalationContactsUserIds")
	in.ManagerContacts = body.GUIDs("managerContactsUserIds")
	in.HierarchyCodes = body.Strings("hierarchyCodes")
}

// createNode is POST /Hierarchy.
func (s *peopleAPI) createNode(c *gin.Context) error {
	body, err := readBody(c)
	if err != nil {
		return err
	}
	in := catalog.NodeInput{Name: body.Required("name"), Parent: body.GUID("parentId")}
	readNodeInput(body, &in)
	return s.writeNode(c, body, func(ctx context.Context) (catalog.Node, error) {
		return s.deps.People.CreateNode(ctx, orgID(c), in)
	})
}

// updateNode is PUT /Hierarchy/{id}.
func (s *peopleAPI) updateNode(c *gin.Context) error {
	id, body, err := readUpdate(c)
	if err != nil {
		return err
	}
	if body.Has("parentId") {
		body.Fail("parentId", "cannot change here; use newParentId (\"remove\" for the top level).")
	}
	in := catalog.NodeInput{Name: body.NotBlank("name"), Parent: body.GUIDOrRemove("newParentId"), IsActive: body.Bool("isActive")}
	readNodeInput(body, &in)
	return s.writeNode(c, body, func(ctx context.Context) (catalog.Node, error) {
		return s.deps.People.UpdateNode(ctx, orgID(c), id, in)
	})
}

func (s *peopleAPI) writeNode(c *gin.Context, body *reqbody.Object, write func(context.Context) (catalog.Node, error)) error {
	if p := body.Problem(); p != nil {
		return p
	}
	n, err := write(c.Request.Context())
	if err != nil {
		return missing(err, nodeNotFound)
	}
	nv, err := s.newNodeViews(c.Request.Context(), orgID(c))
	if err != nil {
		return missing(err, "")
	}
	v := nv.view(n)
	v.ParentID = n.ParentID
	c.JSON(http.StatusOK, v)
	return nil
}
