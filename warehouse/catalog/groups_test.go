package catalog

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/earshot/earshot/internal/invalid"
)

// Membership of a mapped group gives its role and hierarchy access, the
// strongest of several groups', under a grant given by hand; leaving,
// renaming, unmapping or deleting the group takes them away.
func TestGroupsGrantWhatTheirMappingsSay(t *testing.T) {
	ctx := context.Background()
	c := openTest(t)
	org, _ := c.Orgs.CreateOrganization(ctx, "acme")
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	nodeName, teamName := "Region", "Team"
	region, err := c.People.CreateNode(ctx, org.ID, NodeInput{Name: &nodeName})
	must(err)
	team, err := c.People.CreateNode(ctx, org.ID, NodeInput{Name: &teamName, Parent: &region.ID})
	must(err)
	user := func(name string) string {
		u, err := c.People.CreateUser(ctx, org.ID, UserInput{UserName: &name}) // a user name is enough
		must(err)
		return u.ID
	}
	ann, bob := user("ann"), user("bob")
	state := func(id string) (string, []string) {
		t.Helper()
		u, err := c.People.User(ctx, org.ID, id)
		must(err)
		grants, err := c.People.Grants(ctx, org.ID, id)
		must(err)
		var out []string
		for _, g := range grants {
			out = append(out, g.NodeID[len(g.NodeID)-4:]+" "+g.AccessLevel+" "+g.Permissions[0])
		}
		return u.RoleName, out
	}
	at := func(n Node, level, media string) string { return n.ID[len(n.ID)-4:] + " " + level + " " + media }
	expect := func(step, id, role string, grants ...string) {
		t.Helper()
		gotRole, gotGrants := state(id)
		if gotRole != role || !slices.Equal(gotGrants, grants) {
			t.Errorf("%s: role %s, grants %v; want %s, %v", step, gotRole, gotGrants, role, grants)
		}
	}

	_, err = c.People.SetGroupMapping(ctx, org.ID, GroupMapping{Group: "Supervisors", RoleName: "Supervisor",
		Access: []GroupAccess{{NodeID: region.ID, AccessLevel: "View", Permissions: []string{"Chat"}}}})
	must(err)
	_, err = c.People.SetGroupMapping(ctx, org.ID, GroupMapping{Group: "Admins", RoleName: "Administrator"})
	must(err)
	_, err = c.People.SetGroupMapping(ctx, org.ID, GroupMapping{Group: "Leads",
		Access: []GroupAccess{{NodeID: region.ID, AccessLevel: "Manage", Permissions: []string{"Audio"}}}})
	must(err)

	sup, err := c.People.CreateGroup(ctx, org.ID, GroupInput{DisplayName: "supervisors", Members: []string{ann, bob}})
	must(err)
	expect("pushed into Supervisors", ann, "Supervisor", at(region, "View", "Chat"))
	expect("pushed into Supervisors", bob, "Supervisor", at(region, "View", "Chat"))

	admins, err := c.People.CreateGroup(ctx, org.ID, GroupInput{DisplayName: "Admins", Members: []string{ann}})
	must(err)
	expect("also in Admins", ann, "Administrator", at(region, "View", "Chat"))
	leads, err := c.People.CreateGroup(ctx, org.ID, GroupInput{DisplayName: "Leads", Members: []string{ann}})
	must(err)
	grants, _ := c.People.Grants(ctx, org.ID, ann)
	if len(grants) != 1 || grants[0].AccessLevel != "Manage" || !slices.Equal(grants[0].Permissions, []string{"Audio", "Chat"}) {
		t.Errorf("two groups on one node: %+v, want Manage with Audio and Chat", grants)
	}

	must(c.People.SetGrant(ctx, org.ID, ann, region.ID, "View", []string{"Audio"}))
	must(c.People.SetGrant(ctx, org.ID, ann, team.ID, "Edit", []string{"Chat"}))
	_, err = c.People.ReplaceGroup(ctx, org.ID, leads.ID, GroupInput{DisplayName: "Leads", Members: []string{ann, bob}}, time.Time{})
	must(err)
	expect("a grant by hand wins on its node", ann, "Administrator", at(region, "View", "Audio"), at(team, "Edit", "Chat"))
	must(c.People.SetGrant(ctx, org.ID, ann, region.ID, "", nil))
	grants, _ = c.People.Grants(ctx, org.ID, ann)
	if len(grants) != 2 || grants[0].NodeID != region.ID || grants[0].AccessLevel != "Manage" {
		t.Errorf("the hand grant removed, the groups' comes back: %+v", grants)
	}

	_, err = c.People.ReplaceGroup(ctx, org.ID, sup.ID, GroupInput{DisplayName: "supervisors", Members: []string{ann}}, sup.ModifiedOn)
	must(err)
	expect("bob leaves Supervisors", bob, "Agent", at(region, "Manage", "Audio"))
	if _, err := c.People.ReplaceGroup(ctx, org.ID, sup.ID, GroupInput{DisplayName: "x"}, sup.ModifiedOn); !errors.Is(err, ErrChanged) {
		t.Errorf("a replacement of an old version: %v, want ErrChanged", err)
	}
	must(c.People.DeleteGroup(ctx, org.ID, admins.ID))
	expect("Admins deleted", ann, "Supervisor", at(region, "Manage", "Audio"), at(team, "Edit", "Chat"))
	must(c.People.DeleteGroupMapping(ctx, org.ID, "LEADS"))
	expect("Leads unmapped", ann, "Supervisor", at(region, "View", "Chat"), at(team, "Edit", "Chat"))
	cur, _ := c.People.Group(ctx, org.ID, sup.ID)
	_, err = c.People.ReplaceGroup(ctx, org.ID, sup.ID, GroupInput{DisplayName: "Former supervisors", Members: []string{ann}}, cur.ModifiedOn)
	must(err)
	expect("Supervisors renamed", ann, "Agent", at(team, "Edit", "Chat"))

	// A deleted user leaves its groups.
	must(c.People.DeleteUser(ctx, org.ID, bob))
	g, _ := c.People.Group(ctx, org.ID, leads.ID)
	if len(g.Members) != 1 || g.Members[0].UserID != ann || g.Members[0].UserName != "ann" {
		t.Errorf("Leads after bob's deletion: %+v", g.Members)
	}
	if groups, _ := c.People.UserGroups(ctx, org.ID, ann); len(groups) != 2 {
		t.Errorf("ann's groups: %+v", groups)
	}
}

// A mapping or a group that cannot hold is refused naming the field.
func TestGroupMistakesNameTheirField(t *testing.T) {
	ctx := context.Background()
	c := openTest(t)
	org, _ := c.Orgs.CreateOrganization(ctx, "acme")
	name := "Region"
	region, _ := c.People.CreateNode(ctx, org.ID, NodeInput{Name: &name})
	for _, tc := range []struct {
		m     GroupMapping
		field string
	}{
		{GroupMapping{Group: " ", RoleName: "Agent"}, "group"},
		{GroupMapping{Group: "g"}, "group"},
		{GroupMapping{Group: "g", RoleName: "Boss"}, "roleName"},
		{GroupMapping{Group: "g", Access: []GroupAccess{{NodeID: "nope", AccessLevel: "View", Permissions: []string{"Chat"}}}}, "access[0].nodeId"},
		{GroupMapping{Group: "g", Access: []GroupAccess{{NodeID: region.ID, AccessLevel: "Own", Permissions: []string{"Chat"}}}}, "access[0].accessLevel"},
		{GroupMapping{Group: "g", Access: []GroupAccess{{NodeID: region.ID, AccessLevel: "View"}}}, "access[0].permissions"},
		{GroupMapping{Group: "g", Access: []GroupAccess{{NodeID: region.ID, AccessLevel: "View", Permissions: []string{"Fax"}}}}, "access[0].permissions"},
	} {
		_, err := c.People.SetGroupMapping(ctx, org.ID, tc.m)
		if f, ok := invalid.As(err); !ok || f.Path != tc.field {
			t.Errorf("%+v: %v, want a mistake in %s", tc.m, err, tc.field)
		}
	}
	if _, err := c.People.CreateGroup(ctx, org.ID, GroupInput{DisplayName: "g", Members: []string{"nobody"}}); err == nil {
		t.Error("a member who is no user was taken")
	}
	_, err := c.People.CreateGroup(ctx, org.ID, GroupInput{DisplayName: "G"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.People.CreateGroup(ctx, org.ID, GroupInput{DisplayName: "g"}); !errors.Is(err, ErrExists) {
		t.Errorf("a second group named g: %v, want ErrExists", err)
	}
	if gs, _ := c.People.Groups(ctx, org.ID); len(gs) != 1 {
		t.Errorf("groups after refusals: %+v", gs)
	}
}

// Replacements of one group at once, each at the version it read, never
// lose one another: a replacement of an old version is ErrChanged, and
// applied again to the new one it keeps every member.
func TestGroupReplacementsAtOnceLoseNothing(t *testing.T) {
	ctx := context.Background()
	c := openTest(t)
	org, _ := c.Orgs.CreateOrganization(ctx, "acme")
	g, err := c.People.CreateGroup(ctx, org.ID, GroupInput{DisplayName: "Team"})
	if err != nil {
		t.Fatal(err)
	}
	const users = 6
	errs := make(chan error, users)
	for i := range users {
		name := fmt.Sprintf("u%d", i)
		u, err := c.People.CreateUser(ctx, org.ID, UserInput{UserName: &name})
		if err != nil {
			t.Fatal(err)
		}
		go func() {
			for {
				cur, err := c.People.Group(ctx, org.ID, g.ID)
				if err != nil {
					errs <- err
					return
				}
				_, err = c.People.ReplaceGroup(ctx, org.ID, g.ID, GroupInput{DisplayName: "Team", Members: append(memberIDs(cur), u.ID)}, cur.ModifiedOn)
				if !errors.Is(err, ErrChanged) {
					errs <- err
					return
				}
			}
		}()
	}
	for range users {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	if g, _ = c.People.Group(ctx, org.ID, g.ID); len(g.Members) != users {
		t.Errorf("%d members after %d additions at once", len(g.Members), users)
	}
}
