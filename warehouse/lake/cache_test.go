package lake

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"
)

// The sweep removes only old files the manifest does not list, and the
// temporary files of interrupted cache writes.
func TestSweepCache(t *testing.T) {
	dir := t.TempDir()
	old := time.Now().Add(-2 * time.Hour)
	files := map[string]bool{ // key -> old
		"lake/conversations/org=o/date=2025-10-03/part-committed.parquet": true,
		"lake/conversations/org=o/date=2025-10-03/part-crashed.parquet":   true,
		"lake/conversations/org=o/date=2025-10-03/part-writing.parquet":   false,
		"lake/conversations/org=o/date=2025-10-03/.cache-123":             true,
	}
	for key, isOld := range files {
		if err := WriteCache(dir, key, []byte("x")); err != nil {
			t.Fatal(err)
		}
		if isOld {
			os.Chtimes(filepath.Join(dir, key), old, old)
		}
	}
	listed := func(key string) bool {
		return key == "lake/conversations/org=o/date=2025-10-03/part-committed.parquet"
	}
	removed, err := SweepCache(dir, time.Now().Add(-time.Hour), listed)
	if err != nil || removed != 2 {
		t.Fatalf("removed %d, %v", removed, err)
	}
	var left []string
	filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if !d.IsDir() {
			left = append(left, filepath.Base(path))
		}
		return nil
	})
	slices.Sort(left)
	if !slices.Equal(left, []string{"part-committed.parquet", "part-writing.parquet"}) {
		t.Fatalf("left %v", left)
	}
	if n, err := SweepCache(filepath.Join(dir, "none"), time.Now(), listed); n != 0 || err != nil {
		t.Fatalf("missing cache: %d %v", n, err)
	}
}
