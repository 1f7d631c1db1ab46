package catalog

import (
	"context"
	"testing"
	"time"
)

// A catalog just restored gives every claim back, ends the runs that were
// running, and fails the pending uploads whose files the backup lacks,
// saying why.
func TestSettleRestored(t *testing.T) {
	ctx := context.Background()
	c := openTest(t)
	org, _ := c.Orgs.CreateOrganization(ctx, "acme")
	arrived := time.Now().UTC()
	stage := func(name string) (string, string) {
		id := NewID()
		key := StagedKey(org.ID, arrived, id, name)
		if err := c.Interactions.CreateInteraction(ctx, Interaction{ID: id, OrgID: org.ID, MediaType: MediaChat, Status: StatusProcessing,
			FileName: name, StagedKey: &key, ArrivedOn: arrived, LocaleID: 1033, ExtendedMetadata: map[string]string{},
			Source: "file", ModifiedOn: arrived}, false); err != nil {
			t.Fatal(err)
		}
		return id, key
	}
	claimed, _ := stage("claimed.json")
	lost, lostKey := stage("lost.json")
	if got, err := c.Interactions.ClaimPending(ctx, "old-host:1", []string{MediaChat}, 10, time.Hour); err != nil || len(got) != 2 {
		t.Fatalf("claimed %d: %v", len(got), err)
	}
	run, _ := c.Jobs.StartJobRun(ctx, "ingest", "old-host:1")
	if empty, err := c.Empty(ctx); err != nil || empty {
		t.Fatalf("a catalog with an organization is empty: %v %v", empty, err)
	}

	if err := c.SettleRestored(ctx, []string{lostKey}); err != nil {
		t.Fatal(err)
	}
	got, err := c.Interactions.ClaimPending(ctx, "new-host:1", []string{MediaChat}, 10, time.Minute)
	if err != nil || len(got) != 1 || got[0].ID != claimed {
		t.Errorf("claimable after the restore: %+v %v, want the claimed upload at once", got, err)
	}
	if it, _ := c.Interactions.Interaction(ctx, org.ID, lost); it.Status != StatusFailedToProcess || len(it.ProcessFailures) != 1 {
		t.Errorf("the upload whose file the backup lacks: %s %+v", it.Status, it.ProcessFailures)
	}
	if runs, _ := c.Jobs.JobRuns(ctx, "ingest", 1); len(runs) != 1 || runs[0].ID != run.ID || runs[0].Status != "failed" {
		t.Errorf("the run that was running: %+v", runs)
	}
}
