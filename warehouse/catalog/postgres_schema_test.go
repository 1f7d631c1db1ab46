package catalog

import (
	"context"
	"database/sql"
	"fmt"
	"slices"
	"strings"
	"testing"

	_ "github.com/jackc/pgx/v5/stdlib"

	"github.com/earshot/earshot/internal/pgtest"
	"github.com/earshot/earshot/sql/migrations"
)

// The catalog's migrations are plain SQL: on a real PostgreSQL (with its
// own forms where it needs them, sql/migrations/postgres) they give the
// same tables, columns (name, kind of type, nullability) and indexes as on
// SQLite (ADR 0003). A migration that only one engine takes fails here,
// and so does one that the engines read differently.
func TestMigrationsGiveTheSameSchemaOnPostgreSQL(t *testing.T) {
	if testEngine != "sqlite" {
		t.Skip("compares the two engines' schemas once")
	}
	ctx := context.Background()
	pg, err := sql.Open("pgx", pgtest.Start(t).URL())
	if err != nil {
		t.Fatal(err)
	}
	defer pg.Close()
	all, err := loadMigrations(overlay{migrations.SQLite, migrations.Postgres})
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range all {
		tx, err := pg.BeginTx(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := tx.ExecContext(ctx, m.body); err != nil {
			t.Fatalf("%s on PostgreSQL: %v", m.name, err)
		}
		if err := tx.Commit(); err != nil {
			t.Fatal(err)
		}
	}
	lite := openTest(t)

	want := columnsOf(t, lite.db, `SELECT m.name, p.name, p.type, p."notnull" OR p.pk > 0
		FROM sqlite_master m JOIN pragma_table_info(m.name) p WHERE m.type = 'table' AND m.name != 'schema_migrations'`)
	got := columnsOf(t, pg, `SELECT table_name, column_name, data_type, is_nullable = 'NO' FROM information_schema.columns
		WHERE table_schema = 'public' AND table_name != 'schema_migrations'`)
	compare(t, "columns", want, got)

	// Named indexes (the engines name those of constraints differently).
	want = mustStrings(t)(queryStrings(ctx, lite.db, `SELECT name FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL`))
	got = mustStrings(t)(queryStrings(ctx, pg, `SELECT indexname FROM pg_indexes WHERE schemaname = 'public' AND indexname NOT LIKE '%_pkey' AND indexname NOT LIKE '%_key'`))
	compare(t, "indexes", want, got)
	if len(want) < 10 {
		t.Fatalf("only %d indexes compared: the check checks little", len(want))
	}
}

// columnsOf lists a schema's columns (a query of table, column, declared
// type, not null) as "table.column kind not null=…".
func columnsOf(t *testing.T, db *sql.DB, query string) []string {
	t.Helper()
	return mustStrings(t)(queryAll(context.Background(), db, func(s scanner) (string, error) {
		var table, column, typ string
		var notNull bool
		err := s.Scan(&table, &column, &typ, &notNull)
		if sqliteBooleans[table+"."+column] {
			typ = "boolean"
		}
		return fmt.Sprintf("%s.%s %s not null=%v", table, column, kindOf(typ), notNull), err
	}, query))
}

// mustStrings fails the test on a query's error.
func mustStrings(t *testing.T) func([]string, error) []string {
	return func(list []string, err error) []string {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return list
	}
}

// sqliteBooleans are the columns a shipped SQLite migration declared
// INTEGER that the catalog reads as booleans (SQLite does not tell them
// apart); PostgreSQL's form declares them BOOLEAN.
var sqliteBooleans = map[string]bool{"org_privacy_settings.keep_originals": true}

// kindOf is a column type as both engines mean it.
func kindOf(declared string) string {
	switch t := strings.ToLower(declared); {
	case strings.Contains(t, "char") || t == "text":
		return "text"
	case strings.Contains(t, "int"):
		return "integer"
	case strings.HasPrefix(t, "timestamp"):
		return "timestamp"
	default:
		return t // boolean, date, double precision…
	}
}

func compare(t *testing.T, what string, want, got []string) {
	t.Helper()
	slices.Sort(want)
	slices.Sort(got)
	if !slices.Equal(want, got) {
		var only []string
		for _, w := range want {
			if !slices.Contains(got, w) {
				only = append(only, "SQLite only: "+w)
			}
		}
		for _, g := range got {
			if !slices.Contains(want, g) {
				only = append(only, "PostgreSQL only: "+g)
			}
		}
		t.Errorf("%s differ:\n%s", what, strings.Join(only, "\n"))
	}
}
