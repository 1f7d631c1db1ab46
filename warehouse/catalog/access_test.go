package catalog

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"
)

// Grants hold down the tree up to a node's own grant; a scope lets through
// exactly the media of the nodes they allow, in Go and in the catalog's
// own filter.
func TestGrantsAndScope(t *testing.T) {
	ctx := context.Background()
	c := openTest(t)
	org, _ := c.Orgs.CreateOrganization(ctx, "acme")
	node := func(name string, parent *string) string {
		n, err := c.People.CreateNode(ctx, org.ID, NodeInput{Name: &name, Parent: parent})
		if err != nil {
			t.Fatal(err)
		}
		return n.ID
	}
	region := node("Region", nil)
	site := node("Site", &region)
	team := node("Team", &site)
	other := node("Other", nil)
	name, email := "ann", "ann@example.com"
	u, err := c.People.CreateUser(ctx, org.ID, UserInput{UserName: &name, Email: &email, FirstName: &name, LastName: &name})
	if err != nil {
		t.Fatal(err)
	}
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(c.People.SetGrant(ctx, org.ID, u.ID, region, "View", []string{"Chat"}))
	must(c.People.SetGrant(ctx, org.ID, u.ID, team, "Manage", []string{"Audio"}))
	if err := c.People.SetGrant(ctx, org.ID, u.ID, NewID(), "View", []string{"Chat"}); !errors.Is(err, ErrNotFound) {
		t.Errorf("a grant on an unknown node: %v", err)
	}
	tree, _ := c.People.Hierarchy(ctx, org.ID)
	grants, err := c.People.Grants(ctx, org.ID, u.ID)
	must(err)
	for id, want := range map[string]string{region: "View", site: "View", team: "Manage", other: ""} {
		if g, _ := Effective(tree, grants, id); g.AccessLevel != want {
			t.Errorf("effective level on %s: %q, want %q", id, g.AccessLevel, want)
		}
	}
	scope := ScopeOf(tree, grants)
	for _, tc := range []struct {
		media string
		node  *string
		want  bool
	}{
		{MediaChat, &site, true}, {MediaProcessedChat, &region, true}, {MediaAudio, &site, false},
		{MediaAudio, &team, true}, {MediaChat, &team, false}, {MediaChat, &other, false}, {MediaChat, nil, false},
	} {
		if got := scope.Allows(tc.media, tc.node); got != tc.want {
			t.Errorf("%s on %v: %v, want %v", tc.media, tc.node, got, tc.want)
		}
	}

	// The catalog's filter agrees.
	arrived := time.Date(2025, 10, 7, 9, 0, 0, 0, time.UTC)
	made := map[string]string{}
	for i, tc := range []struct {
		label, media string
		node         *string
	}{{"chat in site", MediaChat, &site}, {"audio in team", MediaAudio, &team}, {"chat in team", MediaChat, &team},
		{"chat elsewhere", MediaChat, &other}, {"chat nowhere", MediaChat, nil}} {
		id := NewID()
		made[id] = tc.label
		must(c.Interactions.CreateInteraction(ctx, Interaction{ID: id, OrgID: org.ID, MediaType: tc.media, Status: StatusProcessing,
			FileName: tc.label + ".json", ArrivedOn: arrived.Add(time.Duration(i) * time.Minute), HierarchyNodeID: tc.node,
			LocaleID: 1033, ExtendedMetadata: map[string]string{}, Source: "text", ModifiedOn: arrived}, false))
	}
	list, err := c.Interactions.Interactions(ctx, org.ID, InteractionFilter{Scope: scope, Limit: 100})
	must(err)
	var got []string
	for _, it := range list {
		got = append(got, made[it.ID])
	}
	if want := []string{"chat in site", "audio in team"}; !slices.Equal(got, want) {
		t.Errorf("filtered by scope: %v, want %v", got, want)
	}
	if list, _ := c.Interactions.Interactions(ctx, org.ID, InteractionFilter{Scope: Scope{}, Limit: 100}); len(list) != 0 {
		t.Errorf("an empty scope lets %d through", len(list))
	}

	// No permissions removes the own grant: the team then follows the region.
	must(c.People.SetGrant(ctx, org.ID, u.ID, team, "", nil))
	grants, _ = c.People.Grants(ctx, org.ID, u.ID)
	if g, _ := Effective(tree, grants, team); len(grants) != 1 || g.AccessLevel != "View" {
		t.Errorf("after removing the team's grant: %+v, %+v", grants, g)
	}
}
