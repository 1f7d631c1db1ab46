package catalog

import (
	"context"
	"database/sql"
	"fmt"
	"math/bits"
	"slices"
	"strings"
	"testing"
	"time"
)

// More rows than one statement takes on SQLite go in several statements,
// all of them (on PostgreSQL in one copy); a bad row among the last fails
// the whole insert.
func TestBulkInsertAcrossStatements(t *testing.T) {
	ctx := context.Background()
	c := openTest(t)
	org, _ := c.Orgs.CreateOrganization(ctx, "acme")
	now := time.Now().UTC()
	n := 10*sharedChunk + 300
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
	cols := []string{"org_id", "created_on", "id", "interaction_id", "message"}
	n := 3*sharedChunk + 7 // three whole statements and the rest
	rows := make([][]any, n)
	want := map[string]string{} // id → interaction id and message
	for i := range rows {
		id, of, msg := NewID(), NewID(), fmt.Sprintf("failure %d", i)
		rows[i] = []any{org.ID, at, id, of, msg}
		want[id] = of + " " + msg
	}
	insert := func(rows [][]any) error {
		return c.inTx(ctx, func(tx *sql.Tx) error { return c.bulkInsert(ctx, tx, "process_failures", cols, rows) })
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

// What a bulk insert's rows store is what inserting them a row at a time
// stores: pointers by what they point to, a column that differs in one row
// only, NULL in some rows, and the same instant in another zone (bound as
// other text on SQLite). On SQLite the values common to every row are
// bound once (splitShared); on PostgreSQL the rows go by the copy
// protocol.
func TestBulkInsertStoresWhatRowByRowDoes(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	c := openTest(t)
	shared, byRow := NewID(), NewID()
	at := stamp(time.Now())
	elsewhere := at.In(time.FixedZone("UTC+2", 2*60*60))
	n := 2*sharedChunk + 5
	rowsOf := func(org string) [][]any {
		var rows [][]any
		for i := range n {
			upload, run, count, when := "up-1", "run-1", 7, at.Add(-time.Hour)
			it := Interaction{ID: NewID(), OrgID: org, UploadID: &upload, MediaType: MediaProcessedChat, Status: StatusReadyToSample,
				FileName: fmt.Sprintf("chats/%04d.json", i), ArrivedOn: at, InteractionDate: &when, LocaleID: 1033, Source: "file",
				ChatMessageCount: &count}
			if i%2 == 1 {
				code := fmt.Sprint("A", i%3)
				it.AgentCode = &code
			}
			if i == n-1 {
				it.InteractionDate = nil
			}
			modified := at
			if i%5 == 0 {
				modified = elsewhere
			}
			rows = append(rows, interactionRow(it, modified, &run))
		}
		return rows
	}
	rows := rowsOf(shared)
	if testEngine == "sqlite" {
		common, own, _ := splitShared(interactionInsertColumns, rows)
		for _, col := range []string{"upload_id", "arrived_on", "chat_message_count", "lake_run_id", "agent_first_name"} {
			if !slices.Contains(common.Columns, col) {
				t.Errorf("%s is common to every row, not bound once: %v", col, common.Columns)
			}
		}
		for _, col := range []string{"id", "file_name", "agent_code", "interaction_date", "modified_on"} {
			if !slices.Contains(own, col) {
				t.Errorf("%s differs between rows, but was bound once: %v", col, own)
			}
		}
	}
	if err := c.inTx(ctx, func(tx *sql.Tx) error { return c.bulkInsert(ctx, tx, "interactions", interactionInsertColumns, rows) }); err != nil {
		t.Fatal(err)
	}
	if err := c.inTx(ctx, func(tx *sql.Tx) error {
		return insertEach(ctx, tx, "interactions", interactionInsertColumns, rowsOf(byRow))
	}); err != nil {
		t.Fatal(err)
	}
	stored := func(org string) [][]sql.NullString {
		t.Helper()
		cols := slices.DeleteFunc(slices.Clone(interactionInsertColumns), func(c string) bool { return c == "id" || c == "org_id" })
		got, err := queryAll(ctx, c.db, func(s scanner) ([]sql.NullString, error) {
			v := make([]sql.NullString, len(cols))
			ptrs := make([]any, len(cols))
			for i := range v {
				ptrs[i] = &v[i]
			}
			return v, s.Scan(ptrs...)
		}, `SELECT `+strings.Join(cols, ", ")+` FROM interactions WHERE org_id = ? ORDER BY file_name`, org)
		if err != nil {
			t.Fatal(err)
		}
		return got
	}
	got, want := stored(shared), stored(byRow)
	if len(got) != n || !slices.EqualFunc(got, want, slices.Equal) {
		t.Fatalf("in bulk, the rows stored\n%v\nrow by row\n%v", got, want)
	}
}

func TestSameValue(t *testing.T) {
	t.Parallel()
	a, a2, b := "a", "a", "b"
	one, one2 := int64(1), int64(1)
	at := time.Date(2026, 11, 28, 12, 0, 0, 0, time.UTC)
	for _, c := range []struct {
		x, y any
		same bool
	}{
		{nil, nil, true},
		{nil, (*string)(nil), false}, // bound alike, but of another type: not taken for the same
		{(*string)(nil), (*string)(nil), true},
		{&a, &a2, true},
		{&a, &b, false},
		{&a, (*string)(nil), false},
		{(*string)(nil), &a, false},
		{"a", "a", true},
		{"a", &a, false},
		{1, 1, true},
		{1, int64(1), false},
		{&one, &one2, true},
		{true, true, true},
		{at, at, true},
		{at, at.In(time.FixedZone("UTC+2", 2*60*60)), false},
		{&at, &[]time.Time{at}[0], true},
		{1.5, 1.5, false}, // a type it does not know: never the same
		{[]byte("a"), []byte("a"), false},
	} {
		if got := sameValue(c.x, c.y); got != c.same {
			t.Errorf("sameValue(%#v, %#v) = %v, want %v", c.x, c.y, got, c.same)
		}
	}
}

// A statement of sharedChunk rows of any table the catalog inserts many
// rows into stays within SQLite's limit of parameters (SQLITE_MAX_VARIABLE_NUMBER).
func TestSharedChunkWithinParameterLimit(t *testing.T) {
	t.Parallel()
	const sqliteMaxParameters = 32766
	for name, cols := range map[string][]string{"interactions": interactionInsertColumns, "lake_files": lakeFileColumns,
		"process_failures": failureColumns, "reviews": reviewColumns, "deliveries": deliveryInsertColumns, "auto_evaluations": autoEvaluationColumns} {
		if n := sharedChunk * len(cols); n > sqliteMaxParameters {
			t.Errorf("%s: %d rows of %d columns are %d parameters, over SQLite's %d", name, sharedChunk, len(cols), n, sqliteMaxParameters)
		}
	}
	if n := newChunk * len(deliveryInsertColumns); n > sqliteMaxParameters {
		t.Errorf("deliveries: %d rows of %d columns are %d parameters, over SQLite's %d", newChunk, len(deliveryInsertColumns), n, sqliteMaxParameters)
	}
}

// A bulk insert's rows go in statements of the most rows a statement
// takes (sharedChunk on SQLite, newChunk for rows that may be taken), then
// of powers of two: every number of rows is covered, in at most as many
// statements of other sizes as the most has bits, from a set of sizes that
// does not grow with the inserts.
func TestChunksComeInFewSizes(t *testing.T) {
	t.Parallel()
	for _, most := range []int{sharedChunk, newChunk} {
		sizes := map[int]bool{}
		for n := 1; n <= 3*most+most/2; n++ {
			left, others := n, 0
			for left > 0 {
				c := chunkOf(left, most)
				if c < 1 || c > left || c&(c-1) != 0 {
					t.Fatalf("%d rows left: a statement of %d", left, c)
				}
				if c < most {
					others++
				}
				sizes[c] = true
				left -= c
			}
			if others > bits.Len(uint(most)) {
				t.Errorf("%d rows: %d statements besides those of %d rows", n, others, most)
			}
		}
		if want := bits.Len(uint(most)); len(sizes) != want {
			t.Errorf("at most %d rows: %d sizes of statements, want %d", most, len(sizes), want)
		}
	}
}

// On PostgreSQL every statement text the catalog runs is rewritten once
// and kept (toPostgres), and prepared on each connection that runs it: bulk
// inserts of every count of rows add no more than a few texts, not one a
// count. Not parallel: it counts the texts every test adds.
func TestBulkInsertStatementsDoNotGrowWithRows(t *testing.T) {
	if testEngine != "postgres" {
		t.Skip("statement texts are kept on PostgreSQL")
	}
	ctx := context.Background()
	c := openTest(t)
	org, _ := c.Orgs.CreateOrganization(ctx, "acme")
	now := stamp(time.Now().UTC())
	texts := func() (n int) {
		rewritten.Range(func(_, _ any) bool { n++; return true })
		return n
	}
	insert := func(rows int) {
		var failures, deliveries [][]any
		for i := range rows {
			failures = append(failures, []any{NewID(), org.ID, NewID(), fmt.Sprint("failure ", i), now})
			deliveries = append(deliveries, []any{NewID(), org.ID, NewID(), "key", "ModelResults", now, DeliveryPending, 0, now, now})
		}
		if err := c.inTx(ctx, func(tx *sql.Tx) error {
			if err := c.bulkInsert(ctx, tx, "process_failures", failureColumns, failures); err != nil {
				return err
			}
			_, err := insertNew(ctx, tx, "deliveries", deliveryInsertColumns, deliveries)
			return err
		}); err != nil {
			t.Fatal(err)
		}
	}
	insert(1) // the transaction's own statements
	before := texts()
	for rows := 1; rows <= newChunk+40; rows += 7 {
		insert(rows)
	}
	if added := texts() - before; added > bits.Len(newChunk) {
		t.Errorf("inserts of 1 to %d rows added %d statement texts, want at most %d", newChunk+40, added, bits.Len(newChunk))
	}
}
