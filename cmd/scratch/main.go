package main

import (
	"database/sql"
	"fmt"

	_ "github.com/duckdb/duckdb-go/v2"
)

func main() {
	db, _ := sql.Open("duckdb", "")
	db.Exec(`CREATE TABLE t (org_id VARCHAR, x INT); INSERT INTO t VALUES ('a',1),('b',2)`)
	_, err := db.Exec(`COPY (SELECT * FROM t WHERE org_id = $org) TO '/tmp/x.parquet' (FORMAT parquet, COMPRESSION zstd)`, sql.Named("org", "a"))
	fmt.Println("copy named:", err)
	var n int
	err = db.QueryRow(`SELECT count(*) FROM read_parquet('/tmp/x.parquet')`).Scan(&n)
	fmt.Println(n, err)
	db2, _ := sql.Open("duckdb", "")
	_, err = db2.Exec(`SET allowed_directories = ['/tmp/gen1m']; SET enable_external_access = false; SET lock_configuration = true`)
	fmt.Println("set:", err)
	err = db2.QueryRow(`SELECT count(*) FROM read_parquet('/tmp/x.parquet')`).Scan(&n)
	fmt.Println("outside:", err)
	err = db2.QueryRow(`SELECT count(*) FROM read_parquet('/tmp/gen1m/bucket/lake/conversations/*/*/*.parquet')`).Scan(&n)
	fmt.Println("inside:", n, err)
	_, err = db2.Exec(`COPY (SELECT 1) TO '/tmp/gen1m/y.csv'`)
	fmt.Println("copy inside:", err)
	_, err = db2.Exec(`SET enable_external_access = true`)
	fmt.Println("reset:", err)
	_, err = db2.Exec(`ATTACH '/tmp/gen1m/catalog.duckdb' AS c (READ_ONLY)`)
	fmt.Println("attach:", err)
}
