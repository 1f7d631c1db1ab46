package catalog

import (
	"context"
	"database/sql"
	"fmt"
	"io/fs"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/earshot/earshot/sql/migrations"
)

// migration is one numbered schema file.
type migration struct {
	version int
	name    string
	body    string
}

// loadMigrations reads NNNN_name.sql files from fsys, ordered by number.
func loadMigrations(fsys fs.FS) ([]migration, error) {
	names, err := fs.Glob(fsys, "*.sql")
	if err != nil {
		return nil, err
	}
	var out []migration
	seen := map[int]string{}
	for _, name := range names {
		num, _, ok := strings.Cut(name, "_")
		version, err := strconv.Atoi(num)
		if !ok || err != nil || version <= 0 {
			return nil, fmt.Errorf("migration %q: name must start with a positive number and '_'", name)
		}
		if other, dup := seen[version]; dup {
			return nil, fmt.Errorf("migrations %q and %q share number %d", other, name, version)
		}
		seen[version] = name
		body, err := fs.ReadFile(fsys, name)
		if err != nil {
			return nil, err
		}
		out = append(out, migration{version: version, name: name, body: string(body)})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].version < out[j].version })
	return out, nil
}

// migrate applies, each in its own transaction, every embedded migration not
// yet recorded in schema_migrations.
func (c *Catalog) migrate(ctx context.Context) error {
	if c.postgres {
		return c.applyMigrations(ctx, overlay{migrations.SQLite, migrations.Postgres})
	}
	return c.applyMigrations(ctx, migrations.SQLite)
}

// overlay is base's files, each replaced by the file of the same name in
// over when it has one.
type overlay struct{ base, over fs.FS }

func (o overlay) Open(name string) (fs.File, error) {
	if name != "." { // the list of files is base's
		if f, err := o.over.Open(name); err == nil {
			return f, nil
		}
	}
	return o.base.Open(name)
}

func (c *Catalog) applyMigrations(ctx context.Context, fsys fs.FS) error {
	all, err := loadMigrations(fsys)
	if err != nil {
		return err
	}
	if _, err := c.db.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS schema_migrations (
		version INTEGER PRIMARY KEY, name VARCHAR NOT NULL, applied_on TIMESTAMP NOT NULL)`); err != nil {
		return fmt.Errorf("create schema_migrations: %w", err)
	}
	applied, err := c.appliedVersions(ctx)
	if err != nil {
		return err
	}
	for _, m := range all {
		if applied[m.version] {
			continue
		}
		err := c.inTx(ctx, func(tx *sql.Tx) error {
			if _, err := tx.ExecContext(ctx, m.body); err != nil {
				return err
			}
			_, err := tx.ExecContext(ctx, `INSERT INTO schema_migrations VALUES (?, ?, ?)`,
				m.version, m.name, time.Now().UTC())
			return err
		})
		if err != nil {
			return fmt.Errorf("apply migration %s: %w", m.name, err)
		}
	}
	return nil
}

func (c *Catalog) appliedVersions(ctx context.Context) (map[int]bool, error) {
	rows, err := c.db.QueryContext(ctx, `SELECT version FROM schema_migrations`)
	if err != nil {
		return nil, fmt.Errorf("read schema_migrations: %w", err)
	}
	defer rows.Close()
	applied := map[int]bool{}
	for rows.Next() {
		var v int
		if err := rows.Scan(&v); err != nil {
			return nil, err
		}
		applied[v] = true
	}
	return applied, rows.Err()
}

// SchemaVersion is the highest applied migration number.
func (c *Catalog) SchemaVersion(ctx context.Context) (int, error) {
	var v sql.NullInt64
	err := c.db.QueryRowContext(ctx, `SELECT max(version) FROM schema_migrations`).Scan(&v)
	return int(v.Int64), err
}
