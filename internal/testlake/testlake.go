// Package testlake gives a test a catalog and a local bucket in a
// temporary directory, with the catalog reading the lake from that bucket.
package testlake

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/earshot/earshot/warehouse/blob"
	"github.com/earshot/earshot/warehouse/catalog"
)

// New opens them; they are closed and removed when the test ends. dir is
// the temporary directory: catalog.duckdb and bucket/ are in it.
func New(t testing.TB) (cat *catalog.Catalog, bucket *blob.Local, dir string) {
	t.Helper()
	dir = t.TempDir()
	cat, err := catalog.Open(context.Background(), filepath.Join(dir, "catalog.duckdb"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cat.Close() })
	bucket, err = blob.OpenLocal(filepath.Join(dir, "bucket"))
	if err != nil {
		t.Fatal(err)
	}
	cat.SetLakeRoot(filepath.Join(dir, "bucket"))
	return cat, bucket, dir
}
