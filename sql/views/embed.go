// Package views holds the views of earshot sql: one CREATE VIEW per file,
// NAME.sql, over the lake's committed files ({{files}} is replaced by the
// list of them). The README documents every column.
package views

import "embed"

// FS holds the view definitions.
//
//go:embed *.sql
var FS embed.FS

// Order is the order the views are created in: a view after the ones it
// reads.
var Order = []string{
	"organizations", "users", "agents", "hierarchy", "classifiers",
	"conversations", "transcript_segments", "classifier_results", "model_results", "evaluation_answers",
}

// Snapshots are the views over the export job's catalog snapshots; the
// others are over the lake tables of the same name.
var Snapshots = map[string]bool{"organizations": true, "users": true, "agents": true, "hierarchy": true, "classifiers": true,
	"evaluation_answers": true}
