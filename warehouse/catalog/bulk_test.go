package catalog

import (
	"context"
	"database/sql"
	"fmt"
	"testing"
	"time"
)

// More rows than one statement takes go in several statements, all of
// them; a bad row in a later statement fails the whole insert.
func TestBulkInsertAcrossStatements(t *testing.T) {
	ctx := context.Background()
	c := openTest(t)
	org, _ := c.Orgs.CreateOrganization(ctx, "acme")
	now := time.Now().UTC()
	n := maxParameters/len(interactionInsertColumns) + 300
	rows := make([][]any, n)
	for i := range rows {
		key := "staging/" + NewID()
		rows[i] = interactionRow(Interaction{ID: NewID(), OrgID: org.ID, MediaType: MediaChat, Status: StatusProcessing, FileName: key + ".tar",
			StagedKey: &key, ArrivedOn: now, LocaleID: 1033, Source: "file"}, now, nil)
	}
	count := func() (have int) {
		c.db.QueryRowContext(ctx, `SELECT count(*) FROM interactions`).Scan(&have)
		return have
	}
	bad := append([][]any{}, rows...)
	bad[n-1] = rows[0] // the same id twice: the last statement fails
	if err := c.inTx(ctx, func(tx *sql.Tx) error { return c.bulkInsert(ctx, tx, "interactions", interactionInsertColumns, bad) }); err == nil {
		t.Fatal("a duplicate id in the last rows gave no error")
	}
	if have := count(); have != 0 {
		t.Fatalf("a failed insert left %d rows", have)
	}
	if err := c.inTx(ctx, func(tx *sql.Tx) error { return c.bulkInsert(ctx, tx, "interactions", interactionInsertColumns, rows) }); err != nil {
		t.Fatal(err)
	}
	if have := count(); have != n {
		t.Fatalf("%d rows, want %d", have, n)
	}
}

// Rows that share some columns' values get them, each its own values
// beside, over several statements; a bad row in a later statement fails
// the whole insert.
func TestBulkInsertSharedAcrossStatements(t *testing.T) {
	ctx := context.Background()
	c := openTest(t)
	org, _ := c.Orgs.CreateOrganization(ctx, "acme")
	at := stamp(time.Now().UTC())
	shared := sharedColumns{Columns: []string{"org_id", "created_on"}, Values: []any{org.ID, at}}
	cols := []string{"id", "interaction_id", "message"}
	n := 3*sharedChunk + 7 // three whole statements and the rest
	rows := make([][]any, n)
	want := map[string]string{} // id → interaction id and message
	for i := range rows {
		id, of, msg := NewID(), NewID(), fmt.Sprintf("failure %d", i)
		rows[i] = []any{id, of, msg}
		want[id] = of + " " + msg
	}
	insert := func(rows [][]any) error {
		return c.inTx(ctx, func(tx *sql.Tx) error { return c.bulkInsertShared(ctx, tx, "process_failures", shared, cols, rows) })
	}
	bad := append([][]any{}, rows...)
	bad[n-1] = rows[0]
	if err := insert(bad); err == nil {
		t.Fatal("a duplicate id in the last rows gave no error")
	}
	if err := insert(rows); err != nil {
		t.Fatal(err)
	}
	got, err := queryAll(ctx, c.db, func(s scanner) (v [4]string, err error) { return v, s.Scan(&v[0], &v[1], &v[2], &v[3]) },
		`SELECT id, org_id, interaction_id, message FROM process_failures`)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != n {
		t.Fatalf("%d rows, want %d (a failed insert leaves none)", len(got), n)
	}
	for _, r := range got {
		if r[1] != org.ID || want[r[0]] != r[2]+" "+r[3] {
			t.Fatalf("row %v, want organization %s and %q", r, org.ID, want[r[0]])
		}
	}
	var stamped int
	if err := c.db.QueryRowContext(ctx, `SELECT count(*) FROM process_failures WHERE created_on = ?`, at).Scan(&stamped); err != nil || stamped != n {
		t.Fatalf("%d rows with the shared time, want %d: %v", stamped, n, err)
	}
}

// insertNew inserts, across statements, only the rows whose keys are not
// taken (by rows there before, or earlier in the same list) and counts
// them, on both engines.
func TestInsertNewCountsTheNewRows(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	c := openTest(t)
	org, _ := c.Orgs.CreateOrganization(ctx, "acme")
	now := time.Now().UTC()
	delivery := func(key string) []any {
		return []any{NewID(), org.ID, "conv", key, "ModelResults", now, DeliveryPending, 0, now, now}
	}
	insert := func(rows [][]any) int64 {
		t.Helper()
		var n int64
		if err := c.inTx(ctx, func(tx *sql.Tx) (err error) {
			n, err = insertNew(ctx, tx, "deliveries", deliveryInsertColumns, rows)
			return err
		}); err != nil {
			t.Fatal(err)
		}
		return n
	}
	var first [][]any
	for i := range newChunk + 10 {
		first = append(first, delivery(fmt.Sprint("k", i)))
	}
	if n := insert(first); n != newChunk+10 {
		t.Fatalf("%d rows inserted, want %d", n, newChunk+10)
	}
	// Every other key is taken already, and one comes twice.
	var second [][]any
	for i := range newChunk + 10 {
		second = append(second, delivery(fmt.Sprint("k", i*2)))
	}
	second = append(second, delivery("k9999"), delivery("k9999"))
	if n := insert(second); n != (newChunk+10)/2+1 {
		t.Fatalf("%d rows inserted, want %d", n, (newChunk+10)/2+1)
	}
	var have int
	c.db.QueryRowContext(ctx, `SELECT count(*) FROM deliveries`).Scan(&have)
	if have != newChunk+10+(newChunk+10)/2+1 {
		t.Fatalf("%d deliveries", have)
	}
}
