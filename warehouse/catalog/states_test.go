package catalog

import (
	"context"
	"database/sql"
	"maps"
	"testing"
	"time"

	"github.com/mattn/go-sqlite3"
)

// A dense page's states are read by id range and filtered here, a sparse
// one's joined on its ids: both give exactly the asked conversations of
// the organization, never a neighbour in the range or another
// organization's; each with its client call id and interaction date as
// stored, NULL or not, whatever characters the id holds.
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
	when := time.Date(2025, 10, 30, 23, 59, 58, 123456000, time.UTC)
	for _, r := range []struct {
		id, org, status string
		run, call       *string
		date            *time.Time
	}{
		{"id-1", "org-a", StatusReadyToSample, ptr("run-1"), ptr("CALL-1"), &when},
		{"id-2", "org-a", StatusSampled, ptr("run-1"), nil, nil},
		{"id-3", "org-a", StatusSampled, ptr("run-2"), ptr(`+"quoted", \ tab\t é 😀`), nil},
		{"id-35", "org-b", StatusSampled, ptr("run-1"), ptr("CALL-35"), &when},
		{"id-4", "org-a", "Processing", nil, nil, nil},
		{"id-5", "org-a", StatusReadyToSample, ptr("run-1"), ptr(""), &now},
		{"id-6", "org-a", StatusSampled, ptr("run-1"), ptr("\x1e\x1f\"\n"), &when},
	} {
		if _, err := c.db.ExecContext(ctx, `INSERT INTO interactions (id, org_id, media_type, status, file_name, arrived_on, locale_id,
			extended_metadata, source, modified_on, lake_run_id, client_call_id, interaction_date) VALUES (?, ?, 'Chat', ?, ?, ?, 1, '{}', 'file', ?, ?, ?, ?)`,
			r.id, orgs[r.org], r.status, r.id+".json", now, now, r.run, r.call, stampPtr(r.date)); err != nil {
			t.Fatal(err)
		}
	}
	ids := []string{"id-1", "id-3", "id-4", "id-5", "id-6"}
	sparse, err := c.Interactions.ConversationStates(ctx, orgs["org-a"], ids, true)
	if err != nil {
		t.Fatal(err)
	}
	dense, err := c.Interactions.ConversationStates(ctx, orgs["org-a"], ids, false)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]ConversationState{
		"id-1": {StatusReadyToSample, valid("run-1"), valid("CALL-1"), sql.NullTime{Time: when, Valid: true}},
		"id-3": {StatusSampled, valid("run-2"), valid(`+"quoted", \ tab\t é 😀`), sql.NullTime{}},
		"id-4": {Status: "Processing"},
		"id-5": {StatusReadyToSample, valid("run-1"), valid(""), sql.NullTime{Time: now, Valid: true}},
		"id-6": {StatusSampled, valid("run-1"), valid("\x1e\x1f\"\n"), sql.NullTime{Time: when, Valid: true}},
	}
	if !maps.Equal(sparse, want) {
		t.Fatalf("sparse: %+v, want %+v", sparse, want)
	}
	if !maps.Equal(sparse, dense) {
		t.Fatalf("dense %+v, sparse %+v", dense, sparse)
	}
}

func valid(s string) sql.NullString { return sql.NullString{String: s, Valid: true} }

// The quick read of a stored time agrees with the driver's wherever it
// reads one, and reads every UTC time the driver writes.
func FuzzStoredTime(f *testing.F) {
	for _, s := range []string{"2025-10-30 23:59:58.123456+00:00", "2025-11-03 10:00:00+00:00", "2025-02-29 10:00:00+00:00",
		"2025-10-30 24:00:00+00:00", "2025-10-30T23:59:58Z", "2025-10-30 23:59:58.+00:00", "2025-10-30 23:59:58.1234567891+00:00",
		"2025-1a-30 23:59:58+00:00", "2025-10-30 23:59:58.123+01:00", "0000-01-01 00:00:00+00:00"} {
		f.Add(s, int64(0))
	}
	f.Add("", int64(1764150000123456789))
	f.Fuzz(func(t *testing.T, text string, unixNano int64) {
		if quick, ok := utcStoredTime(text); ok {
			driver, err := driverStoredTime(text)
			if err != nil || !driver.Equal(quick) || quick.Location() != time.UTC {
				t.Fatalf("%q: quick %v, driver %v (%v)", text, quick, driver, err)
			}
		}
		written := time.Unix(0, unixNano).UTC().Format(sqlite3.SQLiteTimestampFormats[0])
		quick, ok := utcStoredTime(written)
		if want := time.Unix(0, unixNano).UTC(); !ok || quick != want {
			t.Fatalf("%q: quick %v (%v), want %v", written, quick, ok, want)
		}
	})
}
