package ddl

import (
	"fmt"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
)

// dialect is what differs between engines.
type dialect interface {
	name(o Options, table string) string
	quote(column string) string
	table(o Options, name, location string, schema *arrow.Schema, partitions []string) string
}

// view is the same statement in every engine.
func view(d dialect, o Options, name, query string) string {
	return fmt.Sprintf("CREATE OR REPLACE VIEW %s AS\n%s;", d.name(o, name), query)
}

// bigQuery: external tables with hive partitioning; the columns come from
// the Parquet files themselves.
type bigQuery struct{}

func (bigQuery) name(o Options, t string) string { return "`" + o.Dataset + "." + t + "`" }
func (bigQuery) quote(c string) string           { return "`" + c + "`" }

func (q bigQuery) table(o Options, name, location string, _ *arrow.Schema, partitions []string) string {
	types := map[string]string{"org": "STRING", "date": "DATE"}
	var parts []string
	for _, p := range partitions {
		parts = append(parts, p+" "+types[p])
	}
	return fmt.Sprintf("CREATE OR REPLACE EXTERNAL TABLE %s\nWITH PARTITION COLUMNS (%s)\nOPTIONS (\n  format = 'PARQUET',\n"+
		"  uris = ['%s/*'],\n  hive_partition_uri_prefix = '%s'\n);", q.name(o, name), strings.Join(parts, ", "), location, location)
}

// trino: Hive connector tables over the partition directories; the
// partitions are registered by sync_partition_metadata (run it again to
// see new dates, or set hive.partition-projection).
type trino struct{}

func (trino) name(o Options, t string) string { return o.Dataset + "." + t }
func (trino) quote(c string) string           { return `"` + c + `"` }

func (q trino) table(o Options, name, location string, schema *arrow.Schema, partitions []string) string {
	var defs []string
	for _, f := range schema.Fields() {
		defs = append(defs, "  "+q.quote(f.Name)+" "+trinoType(f.Type))
	}
	types := map[string]string{"org": "varchar", "date": "date"}
	var quoted []string
	for _, p := range partitions {
		defs = append(defs, "  "+q.quote(p)+" "+types[p])
		quoted = append(quoted, "'"+p+"'")
	}
	catalog, schemaName, _ := strings.Cut(o.Dataset, ".")
	return fmt.Sprintf("CREATE TABLE IF NOT EXISTS %s (\n%s\n)\nWITH (\n  external_location = '%s',\n  format = 'PARQUET',\n  partitioned_by = ARRAY[%s]\n);\n"+
		"CALL %s.system.sync_partition_metadata('%s', '%s', 'FULL');",
		q.name(o, name), strings.Join(defs, ",\n"), location, strings.Join(quoted, ", "), catalog, schemaName, name)
}

func trinoType(t arrow.DataType) string {
	switch t := t.(type) {
	case *arrow.StringType:
		return "varchar"
	case *arrow.Int32Type:
		return "integer"
	case *arrow.Int64Type:
		return "bigint"
	case *arrow.Float32Type:
		return "real"
	case *arrow.Float64Type:
		return "double"
	case *arrow.BooleanType:
		return "boolean"
	case *arrow.TimestampType:
		// The Hive connector reads microsecond Parquet timestamps at its
		// configured precision (hive.timestamp-precision, milliseconds by default).
		return "timestamp(3)"
	case *arrow.ListType:
		return "array(" + trinoType(t.Elem()) + ")"
	case *arrow.StructType:
		var fields []string
		for _, f := range t.Fields() {
			fields = append(fields, `"`+f.Name+`" `+trinoType(f.Type))
		}
		return "row(" + strings.Join(fields, ", ") + ")"
	}
	panic("ddl: no Trino type for " + t.String())
}

// duckDB: views straight over the files (a local lake, or gs:// with the
// httpfs extension and a GCS secret).
type duckDB struct{}

func (duckDB) name(o Options, t string) string {
	if o.Dataset == "" {
		return t
	}
	return o.Dataset + "." + t
}
func (duckDB) quote(c string) string { return `"` + c + `"` }

func (q duckDB) table(o Options, name, location string, _ *arrow.Schema, partitions []string) string {
	glob := location + strings.Repeat("/*", len(partitions)) + "/*.parquet"
	return fmt.Sprintf("CREATE OR REPLACE VIEW %s AS\nSELECT * FROM read_parquet('%s', hive_partitioning = true, hive_types = {%s});",
		q.name(o, name), glob, duckHiveTypes(partitions))
}

func duckHiveTypes(partitions []string) string {
	types := map[string]string{"org": "VARCHAR", "date": "DATE"}
	var out []string
	for _, p := range partitions {
		out = append(out, "'"+p+"': "+types[p])
	}
	return strings.Join(out, ", ")
}
