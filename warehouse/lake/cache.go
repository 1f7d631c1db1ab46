package lake

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/earshot/earshot/warehouse/blob"
)

// A remote bucket (gs://) holds the lake's durable copy; DuckDB reads local
// files (its httpfs is not available offline), so a server keeps a local
// cache of the committed files: the writer writes through to it, and Fill
// brings in what other workers committed (on start).

// WriteCache stores a file's bytes in the cache directory, atomically.
func WriteCache(dir, key string, data []byte) error {
	path := filepath.Join(dir, filepath.FromSlash(key))
	if err := os.MkdirAll(filepath.Dir(path), 0o750); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".cache-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}

// Getter reads objects.
type Getter interface {
	Get(ctx context.Context, key string) (io.ReadCloser, error)
}

// Fill copies into dir every listed lake file it does not hold yet, and
// reports how many it fetched. Files are fetched fetchesAtOnce at a time:
// a replica's first fill is every file of the lake, each a round trip to
// the bucket.
func Fill(ctx context.Context, bucket Getter, dir string, paths []string) (int, error) {
	var fetched atomic.Int64
	fetches, fctx := errgroup.WithContext(ctx)
	fetches.SetLimit(fetchesAtOnce)
	for _, key := range paths {
		local := filepath.Join(dir, filepath.FromSlash(key))
		if _, err := os.Stat(local); err == nil {
			continue
		}
		fetches.Go(func() error {
			if err := fetch(fctx, bucket, dir, key); err != nil {
				return err
			}
			fetched.Add(1)
			return nil
		})
	}
	err := fetches.Wait()
	return int(fetched.Load()), err
}

// fetchesAtOnce is how many files Fill fetches side by side.
const fetchesAtOnce = 16

// fetch copies one lake file from the bucket into the cache.
func fetch(ctx context.Context, bucket Getter, dir, key string) error {
	rc, err := bucket.Get(ctx, key)
	if errors.Is(err, blob.ErrNotFound) {
		return fmt.Errorf("manifest file %s is missing from the bucket", key)
	}
	if err != nil {
		return err
	}
	data, err := io.ReadAll(rc)
	rc.Close()
	if err != nil {
		return fmt.Errorf("fetch %s: %w", key, err)
	}
	return WriteCache(dir, key, data)
}

// Evict removes a file from the cache (after compaction replaced it).
func Evict(dir, key string) {
	if dir != "" {
		os.Remove(filepath.Join(dir, filepath.FromSlash(key)))
	}
}

// SweepCache removes from the cache directory the lake files older than
// cutoff that listed says no manifest entry names (written through by a
// run that crashed before committing, here or on another worker), and
// temporary files an interrupted cache write left. It reports how many
// it removed.
func SweepCache(dir string, cutoff time.Time, listed func(key string) bool) (int, error) {
	removed := 0
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		info, err := d.Info()
		if err != nil || info.ModTime().After(cutoff) {
			return err
		}
		if strings.HasPrefix(d.Name(), ".cache-") {
			if os.Remove(path) == nil {
				removed++
			}
			return nil
		}
		if !strings.HasSuffix(d.Name(), ".parquet") {
			return nil
		}
		rel, err := filepath.Rel(dir, path)
		if err != nil {
			return err
		}
		if listed(filepath.ToSlash(rel)) {
			return nil
		}
		if os.Remove(path) == nil {
			removed++
		}
		return nil
	})
	if errors.Is(err, fs.ErrNotExist) {
		return removed, nil
	}
	return removed, err
}
