package access

import (
	"context"
	"errors"
	"testing"

	"github.com/earshot/earshot/warehouse/catalog"
)

// directory is a fixed organization: a region with two teams, the
// standard roles as the catalog declares them, and one user's grants.
type directory struct{ grants []catalog.Grant }

func (d directory) Roles(context.Context, string, *bool) ([]catalog.Role, error) {
	return catalog.StandardRoles(), nil
}

func (d directory) Hierarchy(context.Context, string) (*catalog.Tree, error) {
	region := "region"
	return catalog.NewTree([]catalog.Node{{ID: region, Name: "Region"}, {ID: "team-a", Name: "A", ParentID: &region},
		{ID: "team-b", Name: "B", ParentID: &region}}), nil
}

func (d directory) Grants(context.Context, string, string) ([]catalog.Grant, error) {
	return d.grants, nil
}

func TestRequireOn(t *testing.T) {
	t.Parallel()
	teamA, teamB, none := "team-a", "team-b", (*string)(nil)
	// The user may see chats of the region at View, and edit team A's.
	grants := []catalog.Grant{{NodeID: "region", AccessLevel: "View", Permissions: []string{"Chat"}},
		{NodeID: "team-a", AccessLevel: "Edit", Permissions: []string{"Chat"}}}
	for _, tc := range []struct {
		role   string
		act    Action
		media  string
		node   *string
		refuse bool // a *Refused
		hidden bool // catalog.ErrNotFound
	}{
		{role: "Supervisor", act: RecordReviews, media: catalog.MediaChat, node: &teamA},
		{role: "Supervisor", act: RecordReviews, media: catalog.MediaChat, node: &teamB, refuse: true}, // View only there
		{role: "Supervisor", act: ReadConversations, media: catalog.MediaChat, node: &teamB},
		{role: "Supervisor", act: RecordReviews, media: catalog.MediaAudio, node: &teamA, hidden: true}, // no Audio grant
		{role: "Supervisor", act: RecordReviews, media: catalog.MediaChat, node: none, hidden: true},
		{role: "Agent", act: RecordReviews, media: catalog.MediaChat, node: &teamA, refuse: true},               // the role lacks it
		{role: "Agent", act: RecordReviews, media: catalog.MediaAudio, node: &teamA, refuse: true},              // the role first: no oracle
		{role: "Agent", act: EditConversations, media: catalog.MediaChat, node: &teamA, refuse: true},           // the role lacks it
		{role: "Analyst", act: PerformEvaluations, media: catalog.MediaChat, node: &teamA},                      // Edit on team A
		{role: "Analyst", act: PerformEvaluations, media: catalog.MediaChat, node: &teamB, refuse: true},        // View on team B
		{role: "Administrator", act: RecordReviews, media: catalog.MediaAudio, node: none},                      // the whole organization
		{role: "Administrator", act: EditConversations, media: catalog.MediaChat, node: &teamB},                 // at Manage everywhere
		{role: "Nobody", act: ReadConversations, media: catalog.MediaChat, node: &teamA, refuse: true},          // no such role: nothing
		{role: "Agent", act: ReadConversations, media: catalog.MediaProcessedChat, node: &teamB, refuse: false}, // processed chats follow Chat
	} {
		a, err := OfUser(context.Background(), directory{grants}, "org", catalog.User{ID: "u1", RoleName: tc.role})
		if err != nil {
			t.Fatal(err)
		}
		err = a.RequireOn(tc.act, tc.media, tc.node)
		var refused *Refused
		switch {
		case tc.refuse && !errors.As(err, &refused):
			t.Errorf("%s %s on %s: %v, want a refusal", tc.role, tc.act.Doing, tc.media, err)
		case tc.hidden && !errors.Is(err, catalog.ErrNotFound):
			t.Errorf("%s %s on %s: %v, want not found", tc.role, tc.act.Doing, tc.media, err)
		case !tc.refuse && !tc.hidden && err != nil:
			t.Errorf("%s %s on %s: %v, want allowed", tc.role, tc.act.Doing, tc.media, err)
		}
	}
}

func TestRefusalSentences(t *testing.T) {
	t.Parallel()
	a, err := OfUser(context.Background(), directory{[]catalog.Grant{{NodeID: "region", AccessLevel: "View", Permissions: []string{"Chat"}}}},
		"org", catalog.User{ID: "u1", RoleName: "Supervisor"})
	if err != nil {
		t.Fatal(err)
	}
	team := "team-a"
	for _, tc := range []struct {
		err  error
		want string
	}{
		{Organization("org").Require(RecordReviews), ""},
		{a.Require(QueryLake), "Your role does not allow querying the lake."},
		{a.RequireOn(RecordReviews, catalog.MediaChat, &team), "Your access to this conversation's hierarchy node is View; recording reviews needs Edit."},
		{a.RequireAssigned("someone-else"), ""}, // a Supervisor manages evaluations
	} {
		got := ""
		if tc.err != nil {
			got = tc.err.Error()
		}
		if got != tc.want {
			t.Errorf("got %q, want %q", got, tc.want)
		}
	}
	agent, _ := OfUser(context.Background(), directory{}, "org", catalog.User{ID: "u2", RoleName: "Analyst"})
	if agent.RequireAssigned("someone-else") == nil || agent.RequireAssigned("u2") != nil || agent.RequireAssigned() != nil {
		t.Error("an analyst does only what is assigned to it (or to nobody in particular)")
	}
}

func TestEveryActionNamesADeclaredPermission(t *testing.T) {
	t.Parallel()
	declared := map[string]bool{}
	for _, p := range catalog.Permissions {
		declared[p.Name] = true
	}
	for _, act := range Actions {
		if !declared[act.Permission] {
			t.Errorf("action %q needs %q, which catalog.Permissions does not declare", act.Doing, act.Permission)
		}
	}
}

// The levels read as the catalog stores them, in order.
func TestLevels(t *testing.T) {
	t.Parallel()
	for name, want := range map[string]Level{"View": View, "Edit": Edit, "Manage": Manage, "Owner": NoLevel, "": NoLevel} {
		if got := LevelOf(name); got != want {
			t.Errorf("LevelOf(%q) = %v, want %v", name, got, want)
		}
	}
	if Edit.String() != "Edit" || NoLevel.String() != "none" {
		t.Errorf("names %s %s", Edit, NoLevel)
	}
}
