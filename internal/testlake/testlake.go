// Package testlake gives a test a catalog and a local bucket in a
// temporary directory, and the lake engine reading the lake from that
// bucket.
package testlake

import (
	"context"
	"database/sql"
	"path/filepath"
	"testing"

	_ "github.com/mattn/go-sqlite3" // the database/sql driver "sqlite3"

	"github.com/earshot/earshot/warehouse/blob"
	"github.com/earshot/earshot/warehouse/catalog"
	"github.com/earshot/earshot/warehouse/lakedb"
)

// CatalogFile is the catalog's file in a test's directory.
const CatalogFile = "catalog.db"

// New opens them; they are closed and removed when the test ends. dir is
// the temporary directory: catalog.db and bucket/ are in it.
func New(t testing.TB) (cat *catalog.Catalog, bucket *blob.Local, dir string) {
	t.Helper()
	dir = t.TempDir()
	cat, err := catalog.Open(context.Background(), filepath.Join(dir, CatalogFile))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cat.Close() })
	bucket, err = blob.OpenLocal(filepath.Join(dir, "bucket"))
	if err != nil {
		t.Fatal(err)
	}
	return cat, bucket, dir
}

// Engine is the lake engine over the files under root, closed when the
// test ends.
func Engine(t testing.TB, root string) *lakedb.DB {
	t.Helper()
	engine, err := lakedb.Open(context.Background(), root)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { engine.Close() })
	return engine
}

// CatalogSQL opens a catalog file directly, as another process would, for
// a test to look at (or change) its rows; closed when the test ends.
func CatalogSQL(t testing.TB, path string) *sql.DB {
	t.Helper()
	db, err := sql.Open("sqlite3", "file:"+path+"?_busy_timeout=10000")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}
