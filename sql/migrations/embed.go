// Package migrations holds the catalog schema as numbered SQL files.
//
// Each file is named NNNN_description.sql and is applied exactly once, in
// order, by warehouse/catalog when the catalog opens. Never edit a file that
// has shipped: add a new one.
package migrations

import "embed"

// Files holds every migration, read by the catalog at start.
//
//go:embed *.sql
var Files embed.FS
