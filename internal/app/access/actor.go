package access

import (
	"context"
	"slices"

	"github.com/earshot/earshot/warehouse/catalog"
)

// Actor is who asks: the organization itself (an API client acting for no
// user, an operator, the identity provider's SCIM client), or one of its
// users, with the user's role permissions and hierarchy grants.
type Actor struct {
	OrgID string
	// UserID and UserName name the user; both "" for the organization.
	UserID, UserName string

	permissions []string // the role's; nil for the organization
	whole       bool     // the organization itself, or a user whose role administers it
	scope       catalog.Scope
	tree        *catalog.Tree
	grants      []catalog.Grant
}

// Organization is the organization acting as itself: every action, on every
// conversation.
func Organization(orgID string) Actor { return Actor{OrgID: orgID, whole: true} }

// Directory is what building a user's actor reads (catalog.PeopleStore).
type Directory interface {
	Roles(ctx context.Context, orgID string, active *bool) ([]catalog.Role, error)
	Hierarchy(ctx context.Context, orgID string) (*catalog.Tree, error)
	Grants(ctx context.Context, orgID, userID string) ([]catalog.Grant, error)
}

// OfUser is a user of the organization as an actor: its active role's
// permissions, and its grants on the hierarchy (the whole organization at
// Manage when its role administers the organization).
func OfUser(ctx context.Context, dir Directory, orgID string, u catalog.User) (Actor, error) {
	a := Actor{OrgID: orgID, UserID: u.ID, UserName: u.UserName, permissions: []string{}}
	active := true
	roles, err := dir.Roles(ctx, orgID, &active)
	if err != nil {
		return Actor{}, err
	}
	for _, r := range roles {
		if r.Name == u.RoleName {
			for _, p := range r.Permissions {
				a.permissions = append(a.permissions, p.Name)
			}
		}
	}
	if slices.Contains(a.permissions, AdministerOrg.Permission) {
		a.whole = true
		return a, nil
	}
	if a.tree, err = dir.Hierarchy(ctx, orgID); err != nil {
		return Actor{}, err
	}
	if a.grants, err = dir.Grants(ctx, orgID, u.ID); err != nil {
		return Actor{}, err
	}
	a.scope = catalog.ScopeOf(a.tree, a.grants)
	return a, nil
}

// IsUser tells whether a user acts (not the organization itself).
func (a Actor) IsUser() bool { return a.UserID != "" }

// Scope is what the actor may read: nil for the whole organization.
func (a Actor) Scope() catalog.Scope {
	if a.whole {
		return nil
	}
	return a.scope
}

// Allows tells whether the actor's role allows an action anywhere (what a
// page offers; the use case still asks Require or RequireOn).
func (a Actor) Allows(act Action) bool { return a.Require(act) == nil }

// Require is nil when the actor's role allows the action, else a *Refused
// naming what the role lacks.
func (a Actor) Require(act Action) error {
	if a.permissions == nil || slices.Contains(a.permissions, act.Permission) {
		return nil
	}
	return &Refused{Detail: "Your role does not allow " + act.Doing + "."}
}

// RequireOn is Require for an action on a conversation of a media type on
// a hierarchy node: catalog.ErrNotFound when the actor may not see the
// conversation (so a refusal never tells that it exists), a *Refused when
// the role or the access level on the node does not allow the action.
func (a Actor) RequireOn(act Action, mediaType string, nodeID *string) error {
	if err := a.Require(act); err != nil {
		return err
	}
	if a.whole {
		return nil
	}
	if !a.scope.Allows(mediaType, nodeID) {
		return catalog.ErrNotFound
	}
	grant, _ := catalog.Effective(a.tree, a.grants, *nodeID)
	if have := LevelOf(grant.AccessLevel); have < act.Level {
		return &Refused{Detail: "Your access to this conversation's hierarchy node is " + have.String() + "; " +
			act.Doing + " needs " + act.Level.String() + "."}
	}
	return nil
}

// RequireAssigned is nil when work assigned to the users assignees (none:
// anyone) may be done by the actor: the organization, an assignee, or a
// user whose role manages evaluations.
func (a Actor) RequireAssigned(assignees ...string) error {
	if !a.IsUser() || len(assignees) == 0 || slices.Contains(assignees, a.UserID) || a.Allows(ManageEvaluations) {
		return nil
	}
	return &Refused{Detail: "This work is assigned to someone else; only its assignee or a user whose role manages evaluations may do it."}
}

// Refused is an action the actor may not take, with the sentence that says
// why (the API's 403 detail, the console's message).
type Refused struct{ Detail string }

func (r *Refused) Error() string { return r.Detail }
