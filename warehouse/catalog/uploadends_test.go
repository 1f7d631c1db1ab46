package catalog

import (
	"context"
	"database/sql"
	"testing"
	"time"
)

// An ingest commit writes each upload's outcome on its record, on both
// engines (PostgreSQL takes them all in one statement): its status, the
// lake run of a conversation's own rows (none for an archive or a
// failure), its counts where known (else the record's stay), its lease
// let go, and the lake row's interaction date where a PATCH since the
// claim moved the record's.
func TestCommitEndsUploads(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	c := openTest(t)
	org, _ := c.Orgs.CreateOrganization(ctx, "acme")
	claimedDate := time.Date(2025, 11, 3, 10, 0, 0, 123456000, time.UTC) // microseconds, as a date is kept
	moved := claimedDate.AddDate(0, 0, 5)
	names := []string{"patched.json", "kept.json", "day.tar", "broken.json", "call.wav"}
	byName := map[string]string{}
	for _, name := range names {
		id, key, earlier := NewID(), "staging/"+name, 7
		if err := c.Interactions.CreateInteraction(ctx, Interaction{ID: id, OrgID: org.ID, MediaType: MediaChat, Status: StatusProcessing,
			FileName: name, StagedKey: &key, ArrivedOn: claimedDate.Add(-time.Hour), InteractionDate: &claimedDate, ChatMessageCount: &earlier,
			LocaleID: 1033, ExtendedMetadata: map[string]string{}, Source: "file", ModifiedOn: claimedDate}, false); err != nil {
			t.Fatal(err)
		}
		byName[name] = id
	}
	claimed, err := c.Interactions.ClaimPending(ctx, "w", []string{MediaChat}, len(names), time.Minute)
	if err != nil || len(claimed) != len(names) {
		t.Fatalf("claimed %d: %v", len(claimed), err)
	}
	if _, err := c.Interactions.PatchInteraction(ctx, org.ID, byName["patched.json"], InteractionPatch{InteractionDate: &moved}); err != nil {
		t.Fatal(err)
	}
	messages, duration := 12, int64(61_500)
	run := NewID()
	ic := IngestCommit{RunID: run, Owner: "w"}
	for _, up := range claimed {
		o := UploadOutcome{Upload: up, Status: StatusReadyToSample, Conversation: true, ChatMessageCount: &messages}
		switch up.FileName {
		case "day.tar":
			o.Conversation, o.ChatMessageCount = false, nil
		case "broken.json":
			o.Status, o.ChatMessageCount, o.Failures = StatusFailedToProcess, nil, []string{"The chat is not valid JSON."}
		case "call.wav":
			o.ChatMessageCount, o.CallDurationMillis = nil, &duration
		}
		ic.Outcomes = append(ic.Outcomes, o)
	}
	before := time.Now().UTC().Add(-time.Second)
	if err := c.Interactions.CommitIngest(ctx, ic); err != nil {
		t.Fatal(err)
	}
	type record struct {
		status                string
		run, owner            sql.NullString
		messages, duration    sql.NullInt64
		lakeDate, leaseExpiry sql.NullTime
		modified              time.Time
	}
	want := map[string]record{
		"patched.json": {status: StatusReadyToSample, run: nullString(run), messages: nullInt(12), lakeDate: sql.NullTime{Time: claimedDate, Valid: true}},
		"kept.json":    {status: StatusReadyToSample, run: nullString(run), messages: nullInt(12)},
		"day.tar":      {status: StatusReadyToSample, messages: nullInt(7)},
		"broken.json":  {status: StatusFailedToProcess, messages: nullInt(7)},
		"call.wav":     {status: StatusReadyToSample, run: nullString(run), messages: nullInt(7), duration: nullInt(61_500)},
	}
	for name, w := range want {
		var got record
		if err := c.db.QueryRowContext(ctx, `SELECT status, lake_run_id, lease_owner, chat_message_count, call_duration_millis,
			lake_interaction_on, lease_expires, modified_on FROM interactions WHERE id = ?`, byName[name]).Scan(&got.status, &got.run, &got.owner,
			&got.messages, &got.duration, &got.lakeDate, &got.leaseExpiry, &got.modified); err != nil {
			t.Fatal(err)
		}
		if got.lakeDate.Valid {
			got.lakeDate.Time = got.lakeDate.Time.UTC()
		}
		if got.modified.Before(before) {
			t.Errorf("%s: modified %v, before the commit", name, got.modified)
		}
		got.modified = time.Time{}
		if got != w {
			t.Errorf("%s:\n got %+v\nwant %+v", name, got, w)
		}
	}
}

func nullString(s string) sql.NullString { return sql.NullString{String: s, Valid: true} }
func nullInt(n int64) sql.NullInt64      { return sql.NullInt64{Int64: n, Valid: true} }
