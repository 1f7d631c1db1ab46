// Package backup takes and restores an installation's backups: one
// consistent snapshot of the catalog (whatever its engine, kept as a SQLite
// file) and a copy of every bucket object that snapshot names, with the
// API clients' credentials file. Compaction keeps the lake files it
// replaces for the backup window (catalog retired_lake_files), so a
// backup copies what its snapshot names even when compaction runs while it
// is taken.
package backup

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"iter"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/earshot/earshot/warehouse/blob"
	"github.com/earshot/earshot/warehouse/catalog"
)

// Files of a backup directory.
const (
	catalogFile     = "catalog.db"
	bucketDir       = "bucket"
	credentialsFile = "credentials.json"
	manifestFile    = "backup.json"
)

// exportPrefix holds the export job's catalog snapshots: named by no
// record, copied whole.
const exportPrefix = "lake/export/"

// Source is what a backup is taken of.
type Source struct {
	Catalog     string // the catalog's address
	Bucket      Bucket
	Credentials string // the credentials file's path
	Version     string // the version taking it
	// AfterStep, when set, runs after each step of the backup: "snapshot",
	// "lake", "staged", "exports" (a test's compaction between them).
	AfterStep func(step string)
}

// Manifest describes a backup (DIR/backup.json).
type Manifest struct {
	Version string    `json:"version"`
	TakenOn time.Time `json:"takenOn"`
	// Tables are the catalog's rows by table.
	Tables  map[string]int64 `json:"tables"`
	Objects int              `json:"objects"`
	Bytes   int64            `json:"bytes"`
	// MissingStaged are staged files the snapshot names that were
	// processed and deleted before they were copied; a restore fails
	// their uploads with a sentence saying so.
	MissingStaged []string `json:"missingStaged,omitempty"`
	Credentials   bool     `json:"credentials"`
}

// Bucket is what a backup reads from and a restore writes to
// (blob.Bucket).
type Bucket interface {
	Get(ctx context.Context, key string) (io.ReadCloser, error)
	Put(ctx context.Context, key string, r io.Reader, opts blob.PutOptions) (blob.ObjectInfo, error)
	List(ctx context.Context, prefix string) iter.Seq2[blob.ObjectInfo, error]
}

// Take backs up the source's catalog and the objects of its bucket the
// catalog's snapshot names, and the credentials file when there is one,
// into dir, which must not exist or be empty.
func Take(ctx context.Context, src Source, dir string) (Manifest, error) {
	m := Manifest{Version: src.Version, TakenOn: time.Now().UTC().Truncate(time.Second)}
	afterStep := func(step string) {
		if src.AfterStep != nil {
			src.AfterStep(step)
		}
	}
	bucket := src.Bucket
	if err := emptyDir(dir); err != nil {
		return m, err
	}
	snapshot := catalog.SchemePrefix + filepath.Join(dir, catalogFile)
	tables, err := catalog.Copy(ctx, src.Catalog, snapshot)
	if err != nil {
		return m, fmt.Errorf("the catalog's snapshot: %w", err)
	}
	m.Tables = tables
	snap, err := catalog.Open(ctx, snapshot)
	if err != nil {
		return m, err
	}
	lakeFiles, staged, err := snap.BackupKeys(ctx)
	snap.Close()
	if err != nil {
		return m, err
	}
	afterStep("snapshot")
	out, err := blob.OpenLocal(filepath.Join(dir, bucketDir))
	if err != nil {
		return m, err
	}
	copyOne := func(key string) error {
		n, err := copyObject(ctx, bucket, out, key)
		m.Objects, m.Bytes = m.Objects+1, m.Bytes+n
		return err
	}
	for _, key := range lakeFiles {
		if err := copyOne(key); err != nil {
			return m, fmt.Errorf("lake file %s, which the snapshot names: %w (is --backup-window shorter than this backup took?)", key, err)
		}
	}
	afterStep("lake")
	for _, key := range staged {
		if err := copyOne(key); errors.Is(err, blob.ErrNotFound) {
			m.Objects--
			m.MissingStaged = append(m.MissingStaged, key)
		} else if err != nil {
			return m, err
		}
	}
	afterStep("staged")
	for o, err := range bucket.List(ctx, exportPrefix) {
		if err != nil {
			return m, err
		}
		if err := copyOne(o.Key); err != nil && !errors.Is(err, blob.ErrNotFound) {
			return m, err
		}
	}
	afterStep("exports")
	if m.Credentials, err = copyFile(src.Credentials, filepath.Join(dir, credentialsFile)); err != nil {
		return m, err
	}
	return m, writeManifest(dir, m)
}

// Restore restores the backup in dir into the catalog at catalogAddress,
// which must be empty (a new SQLite file, an empty PostgreSQL database),
// and into bucket, and puts the credentials file back where there is
// none. The restored catalog is settled (catalog.SettleRestored).
func Restore(ctx context.Context, dir, catalogAddress string, bucket Bucket, credentials string) (Manifest, error) {
	var m Manifest
	raw, err := os.ReadFile(filepath.Join(dir, manifestFile))
	if err != nil {
		return m, fmt.Errorf("%s is no complete backup: %w", dir, err)
	}
	if err := json.Unmarshal(raw, &m); err != nil {
		return m, fmt.Errorf("%s: %w", manifestFile, err)
	}
	if err := emptyCatalog(ctx, catalogAddress); err != nil {
		return m, err
	}
	in, err := blob.OpenLocal(filepath.Join(dir, bucketDir))
	if err != nil {
		return m, err
	}
	restored := 0
	for o, err := range in.List(ctx, "") {
		if err != nil {
			return m, err
		}
		if _, err := copyObject(ctx, in, bucket, o.Key); err != nil {
			return m, err
		}
		restored++
	}
	if restored != m.Objects {
		return m, fmt.Errorf("the backup holds %d objects, its manifest says %d: it is incomplete", restored, m.Objects)
	}
	if _, err := catalog.Copy(ctx, catalog.SchemePrefix+filepath.Join(dir, catalogFile), catalogAddress); err != nil {
		return m, fmt.Errorf("restore the catalog: %w", err)
	}
	cat, err := catalog.Open(ctx, catalogAddress)
	if err != nil {
		return m, err
	}
	defer cat.Close()
	if err := cat.SettleRestored(ctx, m.MissingStaged); err != nil {
		return m, err
	}
	if m.Credentials {
		if _, err := os.Stat(credentials); errors.Is(err, os.ErrNotExist) {
			if _, err := copyFile(filepath.Join(dir, credentialsFile), credentials); err != nil {
				return m, err
			}
		}
	}
	return m, nil
}

// emptyCatalog refuses a restore into a catalog that holds data.
func emptyCatalog(ctx context.Context, address string) error {
	cat, err := catalog.Open(ctx, address)
	if err != nil {
		return err
	}
	defer cat.Close()
	empty, err := cat.Empty(ctx)
	if err == nil && !empty {
		err = fmt.Errorf("the catalog to restore into already has data: restore into a new data directory (or an empty database) before earshot serve first starts there: %w", catalog.ErrNotEmpty)
	}
	return err
}

// copyObject copies key from one bucket to another and says how many
// bytes it copied.
func copyObject(ctx context.Context, from, to Bucket, key string) (int64, error) {
	r, err := from.Get(ctx, key)
	if err != nil {
		return 0, err
	}
	defer r.Close()
	info, err := to.Put(ctx, key, r, blob.PutOptions{})
	return info.Size, err
}

// copyFile copies a file (mode 0600), and says whether there was one.
func copyFile(from, to string) (bool, error) {
	data, err := os.ReadFile(from)
	if errors.Is(err, os.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	if err := os.MkdirAll(filepath.Dir(to), 0o700); err != nil {
		return false, err
	}
	return true, os.WriteFile(to, data, 0o600)
}

func emptyDir(dir string) error {
	entries, err := os.ReadDir(dir)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return os.MkdirAll(dir, 0o700)
	case err != nil:
		return err
	case len(entries) > 0:
		names := make([]string, 0, len(entries))
		for _, e := range entries {
			names = append(names, e.Name())
		}
		return fmt.Errorf("%s is not empty (%s): a backup goes into a directory of its own", dir, strings.Join(names, ", "))
	}
	return nil
}

// writeManifest writes backup.json last: a backup without it is
// incomplete.
func writeManifest(dir string, m Manifest) error {
	data, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, manifestFile), append(data, '\n'), 0o600)
}
