package catalog

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/fstest"

	"github.com/earshot/earshot/internal/pgtest"
)

// testEngine is the engine openTest opens: TestMain runs the whole suite
// on SQLite, then again on PostgreSQL (one acceptance suite, both drivers).
var testEngine = "sqlite"

func TestMain(m *testing.M) {
	code := m.Run()
	if code == 0 {
		testEngine = "postgres"
		fmt.Println("the same tests on PostgreSQL:")
		code = m.Run()
	}
	pgtest.StopShared()
	os.Exit(code)
}

// openTest opens an empty catalog of the engine under test.
func openTest(t testing.TB) *Catalog {
	t.Helper()
	address := filepath.Join(t.TempDir(), "catalog.db")
	if testEngine == "postgres" {
		address = pgtest.Database(t)
	}
	return openAt(t, address)
}

// openAt opens the catalog at an address for the test.
func openAt(t testing.TB, address string) *Catalog {
	t.Helper()
	c, err := Open(context.Background(), address)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

func TestMigrationsApplyOnceAndSurviveReopen(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "catalog.db")
	c, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	v1, err := c.SchemaVersion(ctx)
	if err != nil || v1 < 1 {
		t.Fatalf("schema version %d, %v", v1, err)
	}
	if _, err := c.Orgs.CreateOrganization(ctx, "acme"); err != nil {
		t.Fatal(err)
	}
	c.Close()

	// Reopening must not re-run the migrations (a re-run CREATE TABLE would fail).
	c, err = Open(ctx, path)
	if err != nil {
		t.Fatalf("reopen: %v", err)
	}
	defer c.Close()
	var n int
	if err := c.db.QueryRow(`SELECT count(*) FROM schema_migrations`).Scan(&n); err != nil || n != v1 {
		t.Fatalf("schema_migrations rows = %d (%v), want %d", n, err, v1)
	}
	orgs, _ := c.Orgs.Organizations(ctx)
	if len(orgs) != 1 || orgs[0].Name != "acme" {
		t.Fatalf("orgs after reopen: %+v", orgs)
	}
}

func TestLoadMigrationsRejectsBadNames(t *testing.T) {
	for name, files := range map[string]fstest.MapFS{
		"no number": {"init.sql": {Data: []byte("SELECT 1")}},
		"zero":      {"0000_x.sql": {Data: []byte("SELECT 1")}},
		"duplicate": {"0001_a.sql": {Data: []byte("SELECT 1")}, "001_b.sql": {Data: []byte("SELECT 1")}},
	} {
		if _, err := loadMigrations(files); err == nil {
			t.Errorf("%s: loadMigrations accepted %v", name, files)
		}
	}
}

func TestFailedMigrationLeavesNoTrace(t *testing.T) {
	ctx := context.Background()
	c := openTest(t)
	bad := fstest.MapFS{"9001_bad.sql": {Data: []byte("CREATE TABLE half (x INTEGER); SELECT * FROM nowhere;")}}
	if err := c.applyMigrations(ctx, bad); err == nil {
		t.Fatal("a failing migration was reported as applied")
	}
	var n int
	c.db.QueryRow(`SELECT count(*) FROM schema_migrations WHERE version = 9001`).Scan(&n)
	if n != 0 {
		t.Fatal("failed migration recorded as applied")
	}
	if _, err := c.db.Exec(`SELECT * FROM half`); err == nil {
		t.Fatal("failed migration left its table behind")
	}
}

func TestOrganizationsAndClients(t *testing.T) {
	ctx := context.Background()
	c := openTest(t)
	org, err := c.Orgs.CreateOrganization(ctx, "acme")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Orgs.CreateOrganization(ctx, "acme"); !errors.Is(err, ErrExists) {
		t.Fatalf("duplicate org name: %v", err)
	}
	if _, err := c.Orgs.Organization(ctx, "nope"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("unknown org: %v", err)
	}
	if _, err := c.Orgs.CreateClient(ctx, APIClient{ID: "c1", OrgID: "missing", Name: "x", SecretHash: "h"}); !errors.Is(err, ErrNotFound) {
		t.Fatalf("client of unknown org: %v", err)
	}
	cl, err := c.Orgs.CreateClient(ctx, APIClient{ID: "c1", OrgID: org.ID, Name: "etl", SecretHash: "h"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Orgs.CreateClient(ctx, APIClient{ID: "c1", OrgID: org.ID, Name: "again", SecretHash: "h"}); !errors.Is(err, ErrExists) {
		t.Fatalf("duplicate client id: %v", err)
	}
	got, err := c.Orgs.Client(ctx, "c1")
	if err != nil || got.OrgID != org.ID || got.Disabled || got.SecretHash != "h" || !got.CreatedOn.Equal(cl.CreatedOn) {
		t.Fatalf("client = %+v, %v", got, err)
	}
	if err := c.Orgs.SetClientDisabled(ctx, "c1", true); err != nil {
		t.Fatal(err)
	}
	if got, _ := c.Orgs.Client(ctx, "c1"); !got.Disabled {
		t.Fatal("client not disabled")
	}
	if err := c.Orgs.SetClientDisabled(ctx, "zz", true); !errors.Is(err, ErrNotFound) {
		t.Fatalf("disable unknown: %v", err)
	}
	other, _ := c.Orgs.CreateOrganization(ctx, "globex")
	c.Orgs.CreateClient(ctx, APIClient{ID: "c2", OrgID: other.ID, Name: "etl", SecretHash: "h"})
	if list, _ := c.Orgs.Clients(ctx, org.ID); len(list) != 1 || list[0].ID != "c1" {
		t.Fatalf("clients of acme: %+v", list)
	}
	if list, _ := c.Orgs.Clients(ctx, ""); len(list) != 2 {
		t.Fatalf("all clients: %+v", list)
	}
}

// Concurrent read-modify-write transactions on one row conflict in DuckDB;
// InTx must retry them so that no increment is lost.
func TestInTxRetriesConflicts(t *testing.T) {
	ctx := context.Background()
	c := openTest(t)
	if _, err := c.db.Exec(`CREATE TABLE counter (id INTEGER, n INTEGER); INSERT INTO counter VALUES (1, 0)`); err != nil {
		t.Fatal(err)
	}
	const workers = 8
	var wg sync.WaitGroup
	var failures atomic.Int32
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			err := c.inTx(ctx, func(tx *sql.Tx) error {
				var n int
				if err := tx.QueryRow(`SELECT n FROM counter WHERE id = 1`).Scan(&n); err != nil {
					return err
				}
				_, err := tx.Exec(`UPDATE counter SET n = ? WHERE id = 1`, n+1)
				return err
			})
			if err != nil {
				failures.Add(1)
				t.Log(err)
			}
		}()
	}
	wg.Wait()
	var n int
	c.db.QueryRow(`SELECT n FROM counter`).Scan(&n)
	if int(failures.Load())+n != workers {
		t.Fatalf("n = %d with %d failures: increments were lost", n, failures.Load())
	}
	if failures.Load() > 0 {
		t.Fatalf("%d transactions failed after retries", failures.Load())
	}
}

// planOf is the plan the engine under test gives a statement with its
// arguments, a line a step (EXPLAIN on PostgreSQL, EXPLAIN QUERY PLAN's
// details on SQLite).
func planOf(t testing.TB, c *Catalog, statement string, args ...any) string {
	t.Helper()
	explain, detail := "EXPLAIN ", func(s scanner) (string, error) { var d string; return d, s.Scan(&d) }
	if testEngine == "sqlite" {
		explain = "EXPLAIN QUERY PLAN "
		detail = func(s scanner) (string, error) {
			var id, parent, unused int
			var d string
			return d, s.Scan(&id, &parent, &unused, &d)
		}
	}
	lines, err := queryAll(context.Background(), c.db, detail, explain+statement, args...)
	if err != nil {
		t.Fatalf("the plan of %s: %v", statement, err)
	}
	return strings.Join(lines, "\n")
}
