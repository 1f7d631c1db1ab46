package lake

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/earshot/earshot/internal/sidebyside"
	"github.com/earshot/earshot/warehouse/blob"
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

// waitingGetter answers no get until several are asked for at once (a
// bucket's round trips, which a fill must not wait on one by one); it
// holds files by key, and says a key it lacks is not found.
type waitingGetter struct {
	files map[string]string
	gate  *sidebyside.Gate
}

func (g waitingGetter) Get(ctx context.Context, key string) (io.ReadCloser, error) {
	if err := g.gate.Wait(ctx); err != nil {
		return nil, err
	}
	body, ok := g.files[key]
	if !ok {
		return nil, fmt.Errorf("%s: %w", key, blob.ErrNotFound)
	}
	return io.NopCloser(strings.NewReader(body)), nil
}

// A fill fetches the files it lacks side by side, leaves those it has,
// and names a manifest file the bucket lacks.
func TestFillFetchesSideBySide(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute) // a get waited on alone never returns
	defer cancel()
	dir := t.TempDir()
	files := map[string]string{}
	var paths []string
	for i := range 40 {
		key := fmt.Sprintf("lake/conversations/org=o/date=2025-10-03/part-%02d.parquet", i)
		files[key], paths = fmt.Sprint("file ", i), append(paths, key)
	}
	if err := WriteCache(dir, paths[0], []byte("file 0")); err != nil {
		t.Fatal(err)
	}
	n, err := Fill(ctx, waitingGetter{files: files, gate: sidebyside.NewGate(0, 8)}, dir, paths)
	if err != nil || n != 39 {
		t.Fatalf("fetched %d, %v; want the 39 not cached", n, err)
	}
	for _, key := range paths {
		if got, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(key))); err != nil || string(got) != files[key] {
			t.Fatalf("%s cached as %q, %v", key, got, err)
		}
	}
	gone := "lake/conversations/org=o/date=2025-10-04/part-gone.parquet"
	getter := waitingGetter{files: files, gate: sidebyside.NewGate(0, 0)}
	if _, err := Fill(ctx, getter, dir, append(paths, gone)); err == nil || !strings.Contains(err.Error(), "manifest file "+gone+" is missing from the bucket") {
		t.Fatalf("a file the bucket lacks: %v", err)
	}
}

// slowGetter is a bucket whose every get is a round trip of a few
// milliseconds (an object store's).
type slowGetter struct {
	body      []byte
	roundTrip time.Duration
}

func (g slowGetter) Get(context.Context, string) (io.ReadCloser, error) {
	time.Sleep(g.roundTrip) // the modelled network, not a wait for a condition
	return io.NopCloser(bytes.NewReader(g.body)), nil
}

// BenchmarkFill fills an empty cache with 64 files of 256 KiB through a
// bucket of 20 ms round trips (a replica's first start), side by side,
// beside the baseline of one file after another.
func BenchmarkFill(b *testing.B) {
	bucket := slowGetter{body: bytes.Repeat([]byte("x"), 256<<10), roundTrip: 20 * time.Millisecond}
	var paths []string
	for i := range 64 {
		paths = append(paths, fmt.Sprintf("lake/conversations/org=o/date=2025-10-03/part-%02d.parquet", i))
	}
	b.Run("side-by-side", func(b *testing.B) {
		for b.Loop() {
			if n, err := Fill(context.Background(), bucket, b.TempDir(), paths); err != nil || n != len(paths) {
				b.Fatal(n, err)
			}
		}
	})
	b.Run("baseline-one-after-another", func(b *testing.B) {
		for b.Loop() {
			dir := b.TempDir()
			for _, key := range paths {
				if err := fetch(context.Background(), bucket, dir, key); err != nil {
					b.Fatal(err)
				}
			}
		}
	})
}
