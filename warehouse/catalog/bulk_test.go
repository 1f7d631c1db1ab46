package catalog

import (
	"context"
	"database/sql"
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
