// Package migrations holds the catalog schema as numbered SQL files, one
// folder per database engine (sqlite/; the PostgreSQL driver adds its own).
//
// Each file is named NNNN_description.sql and is applied exactly once, in
// order, by warehouse/catalog when the catalog opens. Never edit a file that
// has shipped: add a new one. The engines' folders keep the same numbers
// and the same tables, so that one catalog can be copied into another.
package migrations

import (
	"embed"
	"io/fs"
)

//go:embed sqlite/*.sql
var files embed.FS

// SQLite holds the SQLite catalog's migrations.
var SQLite = mustSub("sqlite")

func mustSub(dir string) fs.FS {
	sub, err := fs.Sub(files, dir)
	if err != nil {
		panic(err)
	}
	return sub
}
