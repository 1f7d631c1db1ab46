package catalog

import (
	"context"
	"testing"
	"time"
)

// Every result set since the endpoint's registration gets one delivery,
// however often discovery runs; claims lease deliveries; an attempt's
// outcome is recorded, and the latest acknowledged one is the
// conversation's receipt.
func TestDeliveries(t *testing.T) {
	ctx := context.Background()
	c := openTest(t)
	org, _ := c.Orgs.CreateOrganization(ctx, "acme")
	arrived := time.Now().UTC().Add(-time.Hour)
	processed := func(id, run string) {
		t.Helper()
		if err := c.Interactions.CreateInteraction(ctx, Interaction{ID: id, OrgID: org.ID, MediaType: MediaChat, Status: StatusReadyToSample,
			FileName: id + ".json", ArrivedOn: arrived, LocaleID: 1033, ExtendedMetadata: map[string]string{}, Source: "text", ModifiedOn: now()}, false); err != nil {
			t.Fatal(err)
		}
		if _, err := c.db.ExecContext(ctx, `UPDATE interactions SET lake_run_id = ?, modified_on = ? WHERE id = ?`, run, now(), id); err != nil {
			t.Fatal(err)
		}
	}
	processed(NewID(), "before") // processed before the endpoint existed: not delivered
	time.Sleep(2 * time.Millisecond)
	ep, err := c.Emissions.SetEndpoint(ctx, org.ID, "https://hooks.example.com/x", "whsec_x")
	if err != nil {
		t.Fatal(err)
	}
	time.Sleep(2 * time.Millisecond)
	conv := NewID()
	processed(conv, "run-1")
	if _, err := c.Reviews.AddReview(ctx, Review{OrgID: org.ID, ConversationID: conv, EventType: "HumanReview", Reviewer: "qa"}); err != nil {
		t.Fatal(err)
	}
	for round, want := range []int64{2, 0} {
		if n, err := c.Emissions.Discover(ctx, ep); err != nil || n != want {
			t.Fatalf("discovery %d: %d (%v), want %d", round, n, err, want)
		}
	}
	claimed, err := c.Emissions.ClaimDeliveries(ctx, "a", 10, time.Minute, time.Now())
	if err != nil || len(claimed) != 2 {
		t.Fatalf("claimed %d (%v)", len(claimed), err)
	}
	if again, _ := c.Emissions.ClaimDeliveries(ctx, "b", 10, time.Minute, time.Now()); len(again) != 0 {
		t.Fatalf("leased deliveries claimed again: %d", len(again))
	}
	receipt := "R-1"
	if err := c.Emissions.RecordAttempt(ctx, claimed[0], DeliveryOutcome{Delivered: true, CustomerReceiptID: &receipt}); err != nil {
		t.Fatal(err)
	}
	if err := c.Emissions.RecordAttempt(ctx, claimed[1], DeliveryOutcome{Error: "503", NextAttemptOn: time.Now().Add(time.Hour)}); err != nil {
		t.Fatal(err)
	}
	latest, err := c.Emissions.LatestReceipts(ctx, org.ID, []string{conv})
	if err != nil || latest[conv].ID != claimed[0].ID || *latest[conv].CustomerReceiptID != "R-1" || latest[conv].TransmittedOn == nil {
		t.Fatalf("latest receipt %+v (%v)", latest, err)
	}
	list, err := c.Emissions.Receipts(ctx, org.ID, ReceiptFilter{From: arrived.Add(-time.Minute), To: time.Now().Add(time.Minute),
		Status: StatusReadyToSample, Limit: 10})
	if err != nil || len(list) != 2 || list[1].Status != DeliveryPending || list[1].Attempts != 1 || *list[1].LastError != "503" {
		t.Fatalf("receipts %+v (%v)", list, err)
	}
	if err := c.Emissions.DeleteEndpoint(ctx, org.ID); err != nil {
		t.Fatal(err)
	}
	if list, _ := c.Emissions.Receipts(ctx, org.ID, ReceiptFilter{From: arrived.Add(-time.Minute), To: time.Now().Add(time.Minute),
		Status: StatusReadyToSample, Limit: 10}); list[1].Status != DeliveryFailed {
		t.Fatalf("a pending delivery of a removed endpoint: %+v", list[1])
	}
}
