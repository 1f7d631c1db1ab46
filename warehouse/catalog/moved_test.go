package catalog

import (
	"context"
	"testing"
	"time"
)

// A PATCHed interaction date of a processed conversation is remembered
// against its lake row's until it is patched back; an unprocessed one's
// is not (its lake row will be written with it), and another
// organization never sees it.
func TestMovedConversations(t *testing.T) {
	c := openTest(t)
	ctx := context.Background()
	org, _ := c.Orgs.CreateOrganization(ctx, "acme")
	other, _ := c.Orgs.CreateOrganization(ctx, "globex")
	arrived := time.Date(2025, 11, 3, 10, 0, 0, 0, time.UTC)
	for _, r := range []struct {
		id, status string
		run        any
	}{{"a-1", StatusReadyToSample, "run-1"}, {"a-2", StatusProcessing, nil}, {"a-3", StatusSampled, "run-1"}} {
		if _, err := c.db.ExecContext(ctx, `INSERT INTO interactions (id, org_id, media_type, status, file_name, arrived_on, locale_id,
			extended_metadata, source, modified_on, lake_run_id) VALUES (?, ?, 'Audio', ?, ?, ?, 1, '{}', 'file', ?, ?)`,
			r.id, org.ID, r.status, r.id+".wav", arrived, arrived, r.run); err != nil {
			t.Fatal(err)
		}
	}
	later := arrived.AddDate(0, 0, 5)
	for _, id := range []string{"a-1", "a-2", "a-3"} {
		if _, err := c.Interactions.PatchInteraction(ctx, org.ID, id, InteractionPatch{InteractionDate: &later}); err != nil {
			t.Fatal(err)
		}
	}
	list := func(orgID string, from, to time.Time) []string {
		moved, err := c.Interactions.MovedConversations(ctx, orgID, "", from, to)
		if err != nil {
			t.Fatal(err)
		}
		var ids []string
		for _, m := range moved {
			if !m.LakeInteractionOn.Equal(arrived) || m.InteractionOn().Before(later) {
				t.Errorf("%s: lake %v, catalog %v", m.ID, m.LakeInteractionOn, m.InteractionOn())
			}
			ids = append(ids, m.ID)
		}
		return ids
	}
	day := func(t time.Time) (time.Time, time.Time) {
		d := t.Truncate(24 * time.Hour)
		return d, d.Add(24*time.Hour - 1)
	}
	for name, window := range map[string][2]time.Time{"old day": {arrived, arrived}, "new day": {later, later}} {
		from, to := day(window[0])
		if got := list(org.ID, from, to); len(got) != 2 || got[0] != "a-1" || got[1] != "a-3" {
			t.Errorf("%s: moved %v, want a-1 and a-3", name, got)
		}
	}
	if got := list(other.ID, arrived.AddDate(-1, 0, 0), later.AddDate(1, 0, 0)); got != nil {
		t.Errorf("another organization sees %v", got)
	}
	// Patched a second time, the lake's date is still the first; patched
	// back to it, nothing has moved.
	again := later.AddDate(0, 0, 1)
	c.Interactions.PatchInteraction(ctx, org.ID, "a-1", InteractionPatch{InteractionDate: &again})
	c.Interactions.PatchInteraction(ctx, org.ID, "a-3", InteractionPatch{InteractionDate: &arrived})
	from, to := day(arrived)
	if got := list(org.ID, from, to.AddDate(0, 0, 10)); len(got) != 1 || got[0] != "a-1" {
		t.Errorf("after patching again: moved %v, want a-1", got)
	}
}
