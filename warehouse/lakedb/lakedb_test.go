package lakedb

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/earshot/earshot/warehouse/blob"
)

// A process whose cache lacks a file another process committed to the
// bucket fetches it when a query names it, once; without a bucket to fetch
// from, the list names the cache's file as it is.
func TestFilesFetchesWhatTheCacheLacks(t *testing.T) {
	ctx := context.Background()
	shared, cache := t.TempDir(), t.TempDir()
	db, err := Open(ctx, cache)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	const path = "lake/conversations/org=a/date=2025-10-07/f.parquet"
	written := filepath.Join(shared, filepath.FromSlash(path))
	os.MkdirAll(filepath.Dir(written), 0o755)
	if _, err := db.db.ExecContext(ctx, `COPY (SELECT range AS n FROM range(5)) TO `+SQLString(written)+` (FORMAT parquet)`); err != nil {
		t.Fatal(err)
	}

	if list := FileList(cache, []string{path}); !strings.Contains(list, cache) {
		t.Fatalf("file list %s", list)
	}
	if _, err := db.Files(ctx, []string{path}); err != nil {
		t.Fatalf("without a bucket the cache is taken as it is: %v", err)
	}
	bucket, err := blob.OpenLocal(shared)
	if err != nil {
		t.Fatal(err)
	}
	db.FetchMissingFrom(bucket)
	list, err := db.Files(ctx, []string{path})
	if err != nil {
		t.Fatal(err)
	}
	var n int
	if err := db.QueryRowContext(ctx, `SELECT count(*) FROM read_parquet(`+list+`)`).Scan(&n); err != nil || n != 5 {
		t.Fatalf("rows %d, %v", n, err)
	}
	// Fetched once: a file removed from the bucket afterwards is still
	// read from the cache (lake files never change once written).
	os.Remove(written)
	if _, err := db.Files(ctx, []string{path}); err != nil {
		t.Fatalf("second read: %v", err)
	}
	if _, err := db.Files(ctx, []string{"lake/conversations/org=a/date=2025-10-08/none.parquet"}); err == nil {
		t.Fatal("a file in neither the cache nor the bucket gave no error")
	}
}
