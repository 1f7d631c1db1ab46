// Package migrations holds the catalog schema as numbered SQL files.
//
// Each file is named NNNN_description.sql and is applied exactly once, in
// order, by warehouse/catalog when the catalog opens. Never edit a file that
// has shipped: add a new one. The SQL is plain enough for SQLite and
// PostgreSQL alike (a test applies it to both and compares the schemas); a
// migration the engines must write differently would get a file per engine
// under the same number (ADR 0003).
package migrations

import (
	"embed"
	"io/fs"
)

//go:embed sqlite/*.sql postgres/*.sql
var files embed.FS

// SQLite holds the SQLite catalog's migrations.
var SQLite = mustSub("sqlite")

// Postgres holds PostgreSQL's own forms of the migrations it must read
// differently; every other number is SQLite's file.
var Postgres = mustSub("postgres")

func mustSub(dir string) fs.FS {
	sub, err := fs.Sub(files, dir)
	if err != nil {
		panic(err)
	}
	return sub
}
