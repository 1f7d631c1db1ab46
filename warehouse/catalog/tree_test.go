package catalog

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"testing"

	"github.com/earshot/earshot/internal/invalid"
)

func ptr[T any](v T) *T { return &v }

// A small fixture tree:
//
//	na (code NA, extra NORTH)
//	├── east (code E)
//	│   └── boston
//	└── west
//	eu
func fixtureNodes() []Node {
	return []Node{
		{ID: "na", Name: "North America", Code: ptr("NA"), HierarchyCodes: []string{"NORTH"}},
		{ID: "east", Name: "East", ParentID: ptr("na"), Code: ptr("E")},
		{ID: "boston", Name: "Boston", ParentID: ptr("east")},
		{ID: "west", Name: "West", ParentID: ptr("na")},
		{ID: "eu", Name: "Europe"},
		{ID: "orphan", Name: "Orphan", ParentID: ptr("gone")},
	}
}

func TestTreeLookups(t *testing.T) {
	tree := NewTree(fixtureNodes())
	cases := []struct {
		name string
		got  any
		want any
	}{
		{"descendants of na", tree.Descendants("na"), []string{"na", "east", "boston", "west"}},
		{"descendants of a leaf", tree.Descendants("boston"), []string{"boston"}},
		{"descendants of unknown", tree.Descendants("nope"), []string(nil)},
		{"codes upward from boston", tree.CodesUpward("boston"), []string{"E", "NA", "NORTH"}},
		{"codes upward from the top", tree.CodesUpward("eu"), []string(nil)},
		{"codes upward from unknown", tree.CodesUpward("nope"), []string(nil)},
		{"depth top", tree.Depth("na"), 0},
		{"depth 2", tree.Depth("boston"), 2},
		{"orphan is top level", tree.Depth("orphan"), 0},
		{"by code", must(tree.ByCode("E")).ID, "east"},
		{"by code ignores case", must(tree.ByCode("na")).ID, "na"},
		{"by extra code", must(tree.ByCode("north")).ID, "na"},
		{"roots sorted by name", ids(tree.Children("")), []string{"eu", "na", "orphan"}},
		{"children sorted by name", ids(tree.Children("na")), []string{"east", "west"}},
		{"within self", tree.IsWithin("na", "na"), true},
		{"within ancestor", tree.IsWithin("boston", "na"), true},
		{"not within sibling", tree.IsWithin("boston", "west"), false},
		{"not within descendant", tree.IsWithin("na", "boston"), false},
	}
	for _, c := range cases {
		if fmt.Sprint(c.got) != fmt.Sprint(c.want) {
			t.Errorf("%s: got %v, want %v", c.name, c.got, c.want)
		}
	}
	if _, ok := tree.ByCode("nope"); ok {
		t.Error("unknown code found")
	}
}

func must(n Node, ok bool) Node {
	if !ok {
		return Node{ID: "<missing>"}
	}
	return n
}

func ids(nodes []Node) []string {
	out := []string{}
	for _, n := range nodes {
		out = append(out, n.ID)
	}
	return out
}

// Hierarchy operations on the real catalog: deep trees, moves, cycles,
// codes, and the descendants lookup after each change.
func TestHierarchyOperations(t *testing.T) {
	ctx := context.Background()
	c := openTest(t)
	org, _ := c.Orgs.CreateOrganization(ctx, "acme")
	other, _ := c.Orgs.CreateOrganization(ctx, "globex")

	// A chain 12 deep.
	var chain []string
	parent := ""
	for i := range 12 {
		n, err := c.People.CreateNode(ctx, org.ID, NodeInput{Name: ptr(fmt.Sprint("level ", i)), Parent: ptr(parent), Code: ptr(fmt.Sprint("L", i))})
		if err != nil {
			t.Fatalf("level %d: %v", i, err)
		}
		chain = append(chain, n.ID)
		parent = n.ID
	}
	tree, _ := c.People.Hierarchy(ctx, org.ID)
	if got := tree.Descendants(chain[0]); !slices.Equal(got, chain) {
		t.Fatalf("descendants of the root: %v", got)
	}
	if tree.Depth(chain[11]) != 11 {
		t.Fatalf("depth %d", tree.Depth(chain[11]))
	}
	side, _ := c.People.CreateNode(ctx, org.ID, NodeInput{Name: ptr("side")})

	type step struct {
		name    string
		node    string
		in      NodeInput
		wantErr error
		field   string
	}
	steps := []step{
		{"move under itself", chain[3], NodeInput{Parent: ptr(chain[3])}, ErrInvalid, "newParentId"},
		{"move under own descendant", chain[3], NodeInput{Parent: ptr(chain[9])}, ErrInvalid, "newParentId"},
		{"move under unknown", chain[3], NodeInput{Parent: ptr("01900000-0000-7000-8000-000000000000")}, ErrInvalid, "newParentId"},
		{"code taken", side.ID, NodeInput{Code: ptr("l5")}, ErrExists, "code"},
		{"extra code taken", side.ID, NodeInput{HierarchyCodes: &[]string{"X1", "L7"}}, ErrExists, "hierarchyCodes"},
		{"code twice", side.ID, NodeInput{Code: ptr("S"), HierarchyCodes: &[]string{"s"}}, ErrExists, "hierarchyCodes"},
		{"unknown contact", side.ID, NodeInput{ManagerContacts: &[]string{"nobody"}}, ErrInvalid, "managerContactsUserIds"},
		{"move subtree under side", chain[6], NodeInput{Parent: ptr(side.ID)}, nil, ""},
		{"move to top level", side.ID, NodeInput{Parent: ptr("")}, nil, ""},
		{"set codes", side.ID, NodeInput{Code: ptr("SIDE"), HierarchyCodes: &[]string{"S1", "S2"}}, nil, ""},
		{"reuse a freed code", chain[0], NodeInput{Code: ptr("L0"), HierarchyCodes: &[]string{}}, nil, ""},
	}
	for _, s := range steps {
		_, err := c.People.UpdateNode(ctx, org.ID, s.node, s.in)
		if s.wantErr == nil {
			if err != nil {
				t.Fatalf("%s: %v", s.name, err)
			}
			continue
		}
		var fe *invalid.Field
		if !errors.Is(err, s.wantErr) || !errors.As(err, &fe) || fe.Path != s.field {
			t.Fatalf("%s: got %v, want %v on %s", s.name, err, s.wantErr, s.field)
		}
	}
	tree, _ = c.People.Hierarchy(ctx, org.ID)
	if got := tree.Descendants(side.ID); !slices.Equal(got, append([]string{side.ID}, chain[6:]...)) {
		t.Fatalf("after the move, descendants of side: %v", got)
	}
	if got := tree.Descendants(chain[0]); !slices.Equal(got, chain[:6]) {
		t.Fatalf("after the move, descendants of the root: %v", got)
	}
	if n, ok := tree.ByCode("s2"); !ok || n.ID != side.ID {
		t.Fatal("extra code lookup after update")
	}
	// Codes are per organization; ids of another organization do not exist here.
	if _, err := c.People.CreateNode(ctx, other.ID, NodeInput{Name: ptr("x"), Code: ptr("SIDE")}); err != nil {
		t.Fatalf("same code in another organization: %v", err)
	}
	if _, err := c.People.UpdateNode(ctx, other.ID, side.ID, NodeInput{Name: ptr("stolen")}); !errors.Is(err, ErrNotFound) {
		t.Fatalf("update across organizations: %v", err)
	}
	if _, err := c.People.CreateNode(ctx, other.ID, NodeInput{Name: ptr("x"), Parent: ptr(side.ID)}); !errors.Is(err, ErrInvalid) {
		t.Fatalf("parent across organizations: %v", err)
	}
}

func TestUsersAndAgents(t *testing.T) {
	ctx := context.Background()
	c := openTest(t)
	org, _ := c.Orgs.CreateOrganization(ctx, "acme")
	roles, _ := c.People.Roles(ctx, org.ID, nil)
	if len(roles) != 4 || roles[0].Name != "Administrator" || len(roles[0].Permissions) != len(Permissions) {
		t.Fatalf("standard roles: %+v", roles)
	}
	u, err := c.People.CreateUser(ctx, org.ID, UserInput{UserName: ptr("Ann"), FirstName: ptr("Ann"), LastName: ptr("Lee"), Email: ptr("ann@x.io")})
	if err != nil || u.RoleName != DefaultRole {
		t.Fatalf("create user: %+v %v", u, err)
	}
	for name, in := range map[string]UserInput{
		"userName case-insensitive": {UserName: ptr("ANN"), FirstName: ptr("a"), LastName: ptr("b"), Email: ptr("other@x.io")},
		"email case-insensitive":    {UserName: ptr("ann2"), FirstName: ptr("a"), LastName: ptr("b"), Email: ptr("ANN@x.io")},
	} {
		var fe *invalid.Field
		if _, err := c.People.CreateUser(ctx, org.ID, in); !errors.Is(err, ErrExists) || !errors.As(err, &fe) {
			t.Errorf("%s: %v", name, err)
		}
	}
	if _, err := c.People.CreateUser(ctx, org.ID, UserInput{UserName: ptr("bo"), FirstName: ptr("a"), LastName: ptr("b"), Email: ptr("bo@x.io"), RoleName: ptr("Wizard")}); !errors.Is(err, ErrInvalid) {
		t.Fatalf("unknown role: %v", err)
	}
	if got, err := c.People.UserByName(ctx, org.ID, "aNN"); err != nil || got.ID != u.ID {
		t.Fatalf("by name: %v", err)
	}
	u2, err := c.People.UpdateUser(ctx, org.ID, u.ID, UserInput{UserName: ptr("ann.lee"), RoleName: ptr("Supervisor")})
	if err != nil || u2.UserName != "ann.lee" || u2.RoleName != "Supervisor" || u2.Email != "ann@x.io" {
		t.Fatalf("update user: %+v %v", u2, err)
	}

	node, _ := c.People.CreateNode(ctx, org.ID, NodeInput{Name: ptr("East")})
	a, err := c.People.CreateAgent(ctx, org.ID, AgentInput{FirstName: ptr("Bo"), LastName: ptr("Ng"), AgentEmail: ptr("bo@x.io"),
		AgentCode: ptr("A-1"), UserID: ptr(u.ID), OSMs: &[]string{node.ID}})
	if err != nil || *a.UserID != u.ID || a.OSMs[0] != node.ID {
		t.Fatalf("create agent: %+v %v", a, err)
	}
	if got, _ := c.People.User(ctx, org.ID, u.ID); got.AgentID == nil || *got.AgentID != a.ID {
		t.Fatal("user's agentId not derived")
	}
	noCode1, err1 := c.People.CreateAgent(ctx, org.ID, AgentInput{FirstName: ptr("C"), LastName: ptr("D"), AgentEmail: ptr("c@x.io")})
	_, err2 := c.People.CreateAgent(ctx, org.ID, AgentInput{FirstName: ptr("E"), LastName: ptr("F"), AgentEmail: ptr("e@x.io")})
	if err1 != nil || err2 != nil {
		t.Fatalf("two agents without codes: %v %v", err1, err2)
	}
	for name, in := range map[string]AgentInput{
		"code taken (case)": {AgentCode: ptr("a-1")},
		"user taken":        {UserID: ptr(u.ID)},
		"unknown user":      {UserID: ptr("nobody")},
		"unknown node":      {OSMs: &[]string{"nowhere"}},
	} {
		if _, err := c.People.UpdateAgent(ctx, org.ID, noCode1.ID, in); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
	a2, err := c.People.UpdateAgent(ctx, org.ID, a.ID, AgentInput{UserID: ptr(""), OSMs: &[]string{}, IsActive: ptr(false)})
	if err != nil || a2.UserID != nil || len(a2.OSMs) != 0 || a2.IsActive {
		t.Fatalf("unlink: %+v %v", a2, err)
	}
	if got, err := c.People.AgentByCode(ctx, org.ID, "A-1"); err != nil || got.ID != a.ID {
		t.Fatalf("by code: %v", err)
	}
	active := true
	if list, _ := c.People.Agents(ctx, org.ID, &active); len(list) != 2 {
		t.Fatalf("active agents: %d", len(list))
	}
}
