//go:build !duckdb_arrow

package lakedb

// Result pages are read through DuckDB's Arrow interface, which
// duckdb-go compiles only with the duckdb_arrow build tag. Build and test
// with make (it sets the tag), or pass -tags duckdb_arrow to go.
var _ = build_with_tag_duckdb_arrow__see_Makefile
