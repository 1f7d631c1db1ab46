package cli

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// The cache of a remote lake keeps the export files the bucket lists and
// loses the others: a day a snapshot no longer has, a file of the layout
// before days; another organization's stay when only one was fetched.
func TestEvictUnlisted(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	keys := []string{
		"lake/export/users/org=a/snapshot.parquet",
		"lake/export/evaluation_answers/org=a/snapshot.parquet",
		"lake/export/evaluation_answers/org=a/date=2026-11-26/data_0.parquet",
		"lake/export/evaluation_answers/org=a/date=2026-11-27/data_0.parquet",
		"lake/export/evaluation_answers/org=b/date=2026-11-20/data_0.parquet",
	}
	for _, k := range keys {
		path := filepath.Join(root, filepath.FromSlash(k))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte("parquet"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	listed := map[string]bool{keys[0]: true, keys[3]: true}
	if err := evictUnlisted(root, "a", listed); err != nil {
		t.Fatal(err)
	}
	left, err := exportFiles(root, "*")
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(left)
	want := []string{keys[3], keys[4], keys[0]}
	if !slices.Equal(left, want) {
		t.Fatalf("left %v, want %v", left, want)
	}
}
