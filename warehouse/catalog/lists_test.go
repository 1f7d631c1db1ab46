package catalog

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/stdlib"
)

func TestToPostgres(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ sqlite, postgres string }{
		{`SELECT a FROM t WHERE b = ? AND c = ?`, `SELECT a FROM t WHERE b = $1 AND c = $2`},
		{`SELECT a FROM t WHERE b = ? AND ` + anyOf("c"),
			`SELECT a FROM t WHERE b = $1 AND c IN (SELECT value FROM unnest(CAST($2 AS text[])) AS value)`},
		{anyIntOf("n") + ` AND x = ?`, `n IN (SELECT CAST(value AS INTEGER) FROM unnest(CAST($1 AS text[])) AS value) AND x = $2`},
		{`SELECT '?', ? FROM t WHERE ? NOT IN (SELECT value FROM json_each(osms))`,
			`SELECT '?', $1 FROM t WHERE $2 NOT IN (SELECT value FROM json_array_elements_text(CAST(osms AS json)))`},
	} {
		if got := toPostgres(c.sqlite); got != c.postgres {
			t.Errorf("toPostgres(%q)\n= %q\nwant %q", c.sqlite, got, c.postgres)
		}
	}
}

// A list parameter is a JSON array for SQLite and a text[] (its strings)
// for PostgreSQL's driver; other values go to pgx as they are.
func TestListParameters(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		bound listParam
		json  string
		bind  []string
	}{
		{list(nil), `[]`, []string{}},
		{list([]string{"a", `quo"te`, "ünï 😀", ""}), `["a","quo\"te","ünï 😀",""]`, []string{"a", `quo"te`, "ünï 😀", ""}},
		{intList([]int{3, -1, 0}), `["3","-1","0"]`, []string{"3", "-1", "0"}},
	} {
		if got, err := c.bound.Value(); err != nil || got != c.json {
			t.Errorf("%q for SQLite: %v %v, want %s", c.bound, got, err, c.json)
		}
		nv := driver.NamedValue{Ordinal: 1, Value: c.bound}
		if err := (rewritingConn{&stdlib.Conn{}}).CheckNamedValue(&nv); err != nil || nv.Value.([]string) == nil || !slices.Equal(nv.Value.([]string), c.bind) {
			t.Errorf("%q for PostgreSQL: %#v %v, want %q", c.bound, nv.Value, err, c.bind)
		}
	}
	other := driver.NamedValue{Ordinal: 1, Value: "x"}
	if err := (rewritingConn{&stdlib.Conn{}}).CheckNamedValue(&other); err != nil || other.Value != "x" {
		t.Errorf("a string for PostgreSQL: %#v %v", other.Value, err)
	}
}

// The chats of two archives, found by a list of their uploads, are read
// by the upload index, not by reading the table: on PostgreSQL the
// planner took a list for a hundred values whatever it held (and a
// hundred archives' chats for most of the table) until lists were bound
// as arrays.
func TestListLookupReadsTheIndex(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	c := openTest(t)
	org, _ := c.Orgs.CreateOrganization(ctx, "acme")
	now := stamp(time.Now().UTC())
	const archives, chats = 200, 50
	var uploads []string
	var rows [][]any
	for a := range archives {
		up := NewID()
		uploads = append(uploads, up)
		for i := range chats {
			rows = append(rows, interactionRow(Interaction{ID: NewID(), OrgID: org.ID, UploadID: &up, MediaType: MediaProcessedChat,
				Status: StatusReadyToSample, FileName: fmt.Sprintf("%d.tar/%d.json", a, i), ArrivedOn: now, LocaleID: 1033, Source: "file"}, now, nil))
		}
	}
	if err := c.inTx(ctx, func(tx *sql.Tx) error { return c.bulkInsert(ctx, tx, "interactions", interactionInsertColumns, rows) }); err != nil {
		t.Fatal(err)
	}
	if testEngine == "postgres" { // as autovacuum would have
		if _, err := c.db.ExecContext(ctx, `ANALYZE interactions`); err != nil {
			t.Fatal(err)
		}
	}
	statement := `SELECT org_id, id FROM interactions WHERE ` + anyOf("upload_id")
	args := []any{list(uploads[:2])}
	lookup := "USING INDEX interactions_upload"
	if testEngine == "postgres" {
		lookup = "Index Cond: ((upload_id)::text = value.value)"
	}
	if plan := planOf(t, c, statement, args...); !strings.Contains(plan, lookup) {
		t.Fatalf("the plan of two archives' chats (want a lookup of %q):\n%s", lookup, plan)
	}
	found, err := queryStrings(ctx, c.db, `SELECT id FROM interactions WHERE `+anyOf("upload_id"), args...)
	if err != nil || len(found) != 2*chats {
		t.Fatalf("%d chats found (%v), want %d", len(found), err, 2*chats)
	}
}
