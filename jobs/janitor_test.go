package jobs

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/earshot/earshot/warehouse/blob"
	"github.com/earshot/earshot/warehouse/catalog"
)

// The janitor removes the old temporary files and the old staged uploads
// no record names; a recent file, and a staged upload a record names,
// stay.
func TestJanitorRemovesOnlyOldLeftovers(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	e := newEnv(t)
	root := e.bucketDir
	tmp := filepath.Join(root, ".tmp")
	if err := os.MkdirAll(tmp, 0o700); err != nil {
		t.Fatal(err)
	}
	old := time.Now().Add(-2 * JanitorAge)
	write := func(path string, size int, modified time.Time) {
		if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, make([]byte, size), 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(path, modified, modified); err != nil {
			t.Fatal(err)
		}
	}
	write(filepath.Join(tmp, "put-1"), 1000, old)
	write(filepath.Join(tmp, "put-2"), 10, time.Now()) // a write going on
	pending := e.stage(t, "pending.json", []byte(ccaiChat))
	it, _ := e.cat.Interactions.Interaction(ctx, e.org.ID, pending)
	os.Chtimes(filepath.Join(root, *it.StagedKey), old, old)
	orphan := catalog.StagedKey(e.org.ID, old, catalog.NewID(), "lost/orphan.tar")
	write(filepath.Join(root, orphan), 500, old)
	young := catalog.StagedKey(e.org.ID, time.Now(), catalog.NewID(), "arriving.tar")
	if _, err := e.bucket.Put(ctx, young, bytes.NewReader([]byte("x")), blob.PutOptions{}); err != nil {
		t.Fatal(err)
	}

	j := &Janitor{Temp: e.bucket, Staged: e.bucket, Names: e.cat.Interactions, Log: slog.New(slog.NewTextHandler(io.Discard, nil))}
	counts, err := j.Run(ctx, catalog.JobRun{})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]int64{"temp_files_removed": 1, "temp_bytes_removed": 1000, "staged_orphans_removed": 1, "staged_bytes_removed": 500}
	for k, v := range want {
		if counts[k] != v {
			t.Errorf("%s: %d, want %d (%v)", k, counts[k], v, counts)
		}
	}
	for path, kept := range map[string]bool{filepath.Join(tmp, "put-1"): false, filepath.Join(tmp, "put-2"): true,
		filepath.Join(root, *it.StagedKey): true, filepath.Join(root, orphan): false, filepath.Join(root, young): true} {
		if _, err := os.Stat(path); (err == nil) != kept {
			t.Errorf("%s: kept %v, want %v", path, err == nil, kept)
		}
	}
}
