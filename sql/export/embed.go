// Package export holds the queries of the export job: one SELECT per
// snapshot of an organization's catalog tables, each file named after the
// lake table it becomes (lake/export/NAME/org=ORG/snapshot.parquet, or a
// folder per day for the tables jobs.ExportByDate names). The
// organization is the query's one parameter, $org.
package export

import "embed"

// FS holds the snapshot queries, NAME.sql.
//
//go:embed *.sql
var FS embed.FS
