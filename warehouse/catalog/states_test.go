package catalog

import (
	"context"
	"maps"
	"testing"
	"time"
)

// A dense page's states are read by id range and filtered here, a sparse
// one's joined on its ids: both give exactly the asked conversations of
// the organization, never a neighbour in the range or another
// organization's.
func TestConversationStatesDenseAndSparse(t *testing.T) {
	c := openTest(t)
	ctx := context.Background()
	orgs := map[string]string{}
	for _, name := range []string{"org-a", "org-b"} {
		o, err := c.Orgs.CreateOrganization(ctx, name)
		if err != nil {
			t.Fatal(err)
		}
		orgs[name] = o.ID
	}
	now := time.Date(2025, 11, 3, 10, 0, 0, 0, time.UTC)
	for _, r := range []struct{ id, org, status string }{
		{"id-1", "org-a", StatusReadyToSample}, {"id-2", "org-a", StatusSampled}, {"id-3", "org-a", StatusSampled},
		{"id-35", "org-b", StatusSampled}, {"id-4", "org-a", "Processing"}, {"id-5", "org-a", StatusReadyToSample},
	} {
		if _, err := c.db.ExecContext(ctx, `INSERT INTO interactions (id, org_id, media_type, status, file_name, arrived_on, locale_id,
			extended_metadata, source, modified_on, lake_run_id) VALUES (?, ?, 'Chat', ?, ?, ?, 1, '{}', 'file', ?, 'run-1')`,
			r.id, orgs[r.org], r.status, r.id+".json", now, now); err != nil {
			t.Fatal(err)
		}
	}
	ids := []string{"id-1", "id-3", "id-5"}
	sparse, err := c.Interactions.ConversationStates(ctx, orgs["org-a"], ids, true)
	if err != nil {
		t.Fatal(err)
	}
	dense, err := c.Interactions.ConversationStates(ctx, orgs["org-a"], ids, false)
	if err != nil {
		t.Fatal(err)
	}
	if len(sparse) != 3 || sparse["id-3"].Status != StatusSampled || sparse["id-1"].Status != StatusReadyToSample {
		t.Fatalf("sparse: %+v", sparse)
	}
	if !maps.EqualFunc(sparse, dense, func(a, b ConversationState) bool {
		return a == b
	}) {
		t.Fatalf("dense %+v, sparse %+v", dense, sparse)
	}
}
