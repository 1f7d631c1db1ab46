package catalog

import (
	"context"
	"testing"
	"time"
)

// A staged key is named by its upload's record or by a deletion still to
// come; a key of no record is not; a key of another form is taken as
// named.
func TestNamedStagedKeys(t *testing.T) {
	ctx := context.Background()
	c := openTest(t)
	org, _ := c.Orgs.CreateOrganization(ctx, "acme")
	arrived := time.Date(2025, 10, 7, 9, 0, 0, 0, time.UTC)
	id, deleting, lost := NewID(), NewID(), NewID()
	recorded, deleted, orphan := StagedKey(org.ID, arrived, id, "a/b.tar"), StagedKey(org.ID, arrived, deleting, "c.json"), StagedKey(org.ID, arrived, lost, "d.json")
	if err := c.Interactions.CreateInteraction(ctx, Interaction{ID: id, OrgID: org.ID, MediaType: MediaChat, Status: StatusProcessing,
		FileName: "a/b.tar", StagedKey: &recorded, ArrivedOn: arrived, LocaleID: 1033, ExtendedMetadata: map[string]string{},
		Source: "file", ModifiedOn: arrived}, false); err != nil {
		t.Fatal(err)
	}
	if _, err := c.db.ExecContext(ctx, `INSERT INTO staged_deletions (interaction_id, staged_key) VALUES (?, ?)`, deleting, deleted); err != nil {
		t.Fatal(err)
	}
	named, err := c.Interactions.NamedStagedKeys(ctx, []string{recorded, deleted, orphan, "staging/odd-form"})
	if err != nil {
		t.Fatal(err)
	}
	for key, want := range map[string]bool{recorded: true, deleted: true, orphan: false, "staging/odd-form": true} {
		if named[key] != want {
			t.Errorf("%s: named %v, want %v", key, named[key], want)
		}
	}
}
