package jobs

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"log/slog"
	"strings"
	"time"

	"github.com/earshot/earshot/warehouse/blob"
	"github.com/earshot/earshot/warehouse/catalog"
	"github.com/earshot/earshot/warehouse/lake"
)

// CompactManifest is what compaction needs of the lake manifest
// (catalog.ManifestStore).
type CompactManifest interface {
	CompactionCandidates(ctx context.Context, compactJob string) ([]catalog.Partition, error)
	SwapLakeFiles(ctx context.Context, runID string, old []string, replacements []catalog.LakeFile) error
	LakePaths(ctx context.Context) ([]string, error)
	RetiredBy(ctx context.Context, t time.Time) ([]string, error)
	ForgetRetired(ctx context.Context, paths []string) error
	FilesWithoutArrivals(ctx context.Context) ([]catalog.LakeFile, error)
	RecordArrivals(ctx context.Context, files []catalog.LakeFile) error
}

// DayRuns gives each conversation of an organization's day its current
// run (catalog.InteractionStore).
type DayRuns interface {
	RunsOfDay(ctx context.Context, orgID string, day time.Time) (map[string]string, error)
}

// PartitionReader reads the current rows of a partition's files
// (lakedb.DB), given each conversation's current run, and a conversations
// file's first and last arrival.
type PartitionReader interface {
	ReadPartition(ctx context.Context, p catalog.Partition, runs map[string]string) (lake.Batch, error)
	Arrivals(ctx context.Context, path string) (first, last time.Time, err error)
}

// LakeBucket lists and removes lake objects.
type LakeBucket interface {
	Delete(ctx context.Context, key string) error
	List(ctx context.Context, prefix string) iter.Seq2[blob.ObjectInfo, error]
}

// OrphanAge is how old a lake file outside the manifest must be before
// compaction deletes it: older than any ingest still writing (its lease).
const OrphanAge = time.Hour

// Compact merges each partition's files into one sorted file (a large
// partition into a few, of disjoint id ranges, encoded at once), keeping
// only every conversation's current rows (superseded runs and chats removed
// by a re-run are dropped), and swaps the manifest entries in one
// transaction.
// The old files are retired, not deleted: a catalog backup taken before the
// swap still names them, so they are deleted once older than the backup
// window.
type Compact struct {
	Manifest   CompactManifest
	Runs       DayRuns
	Partitions PartitionReader
	Lake       LakeWriter
	Bucket     LakeBucket
	Cache      string // local copy of a remote bucket's lake, "" when none
	// Figures, when set, keeps the dashboards' figures of the compacted
	// days, once they are compacted in both tables.
	Figures FigureKeeper
	// BackupWindow is how long replaced files are kept (0: deleted by the
	// run that replaced them).
	BackupWindow time.Duration
	Log          *slog.Logger
}

// Run compacts every partition of several files that is not already one
// compaction's output (a large partition is written as several files),
// then records the arrival range of the conversations files whose manifest
// entries lack it.
func (j *Compact) Run(ctx context.Context, run catalog.JobRun) (map[string]int64, error) {
	counts := map[string]int64{"partitions": 0, "files_retired": 0, "files_removed": 0, "files_written": 0, "rows": 0}
	parts, err := j.Manifest.CompactionCandidates(ctx, run.Job)
	if err != nil {
		return counts, err
	}
	var written []catalog.LakeFile
	defer func() { keepFigures(ctx, j.Figures, j.Log, written, nil) }()
	for _, p := range parts {
		if err := ctx.Err(); err != nil {
			return counts, err
		}
		batch, err := j.read(ctx, p)
		if err != nil {
			return counts, fmt.Errorf("read %s %s %s: %w", p.Table, p.OrgID, p.Date.Format(time.DateOnly), err)
		}
		var files []catalog.LakeFile
		if batch.Rows() > 0 {
			if files, err = j.Lake.Write(ctx, run.ID, batch); err != nil {
				return counts, err
			}
		}
		if err := j.Manifest.SwapLakeFiles(ctx, run.ID, p.Paths, files); err != nil {
			for _, f := range files {
				j.Bucket.Delete(context.WithoutCancel(ctx), f.Path)
			}
			if errors.Is(err, catalog.ErrManifestChanged) {
				continue
			}
			return counts, err
		}
		written = append(written, files...)
		for _, old := range p.Paths { // no reader can open them any more
			lake.Evict(j.Cache, old)
		}
		counts["partitions"]++
		counts["files_retired"] += int64(len(p.Paths))
		counts["files_written"] += int64(len(files))
		counts["rows"] += int64(batch.Rows())
	}
	counts["arrivals_recorded"], err = j.recordArrivals(ctx)
	if err != nil {
		return counts, err
	}
	deleted, err := j.deleteRetired(ctx)
	counts["files_removed"] = deleted
	if err != nil {
		return counts, err
	}
	removed, err := j.removeOrphans(ctx)
	counts["orphans_removed"] = removed
	return counts, err
}

// deleteRetired deletes the files retired longer ago than the backup
// window: no backup that young names them.
func (j *Compact) deleteRetired(ctx context.Context) (int64, error) {
	paths, err := j.Manifest.RetiredBy(ctx, time.Now().Add(-j.BackupWindow))
	if err != nil || len(paths) == 0 {
		return 0, err
	}
	var gone []string
	for _, p := range paths {
		if err := j.Bucket.Delete(ctx, p); err != nil && !errors.Is(err, blob.ErrNotFound) {
			j.Log.Warn("compact: retired file not deleted", "path", p, "err", err)
			continue
		}
		gone = append(gone, p)
	}
	return int64(len(gone)), j.Manifest.ForgetRetired(ctx, gone)
}

// removeOrphans deletes lake files no manifest entry names — left by runs
// that crashed before committing — once they are older than OrphanAge,
// from the bucket and from the local cache of a remote bucket.
// The manifest is read once, before listing: a file committed after that
// is younger than the cutoff, so it is never a candidate.
func (j *Compact) removeOrphans(ctx context.Context) (int64, error) {
	var removed int64
	cutoff := time.Now().Add(-OrphanAge)
	paths, err := j.Manifest.LakePaths(ctx)
	if err != nil {
		return 0, err
	}
	manifest := make(map[string]bool, len(paths))
	for _, p := range paths {
		manifest[p] = true
	}
	// Export snapshots are outside the commit protocol (each replaces the
	// last in one write): no manifest lists them, and they are no orphans.
	listed := func(key string) bool { return manifest[key] || strings.HasPrefix(key, ExportPrefix) }
	for o, err := range j.Bucket.List(ctx, lake.Prefix) {
		if err != nil {
			return removed, err
		}
		if !strings.HasSuffix(o.Key, ".parquet") || o.Modified.After(cutoff) || listed(o.Key) {
			continue
		}
		if err := j.Bucket.Delete(ctx, o.Key); err == nil {
			removed++
		}
	}
	if j.Cache != "" {
		swept, err := lake.SweepCache(j.Cache, cutoff, listed)
		removed += int64(swept)
		if err != nil {
			return removed, fmt.Errorf("sweep the lake cache: %w", err)
		}
	}
	return removed, nil
}

// read loads a partition's current rows: only each conversation's current
// run (its run in the catalog).
func (j *Compact) read(ctx context.Context, p catalog.Partition) (lake.Batch, error) {
	runs, err := j.Runs.RunsOfDay(ctx, p.OrgID, p.Date)
	if err != nil {
		return lake.Batch{}, err
	}
	return j.Partitions.ReadPartition(ctx, p, runs)
}

// recordArrivals records, in their manifest entries, the first and last
// arrival of the conversations files written before entries recorded them,
// read from each file: windows of part of a day then count and skip those
// files as they do newer ones. A file that cannot be read is left as it
// is (read by whole days, as before) and tried again the next run.
func (j *Compact) recordArrivals(ctx context.Context) (int64, error) {
	files, err := j.Manifest.FilesWithoutArrivals(ctx)
	if err != nil {
		return 0, err
	}
	var read []catalog.LakeFile
	for _, f := range files {
		if err := ctx.Err(); err != nil {
			return 0, err
		}
		first, last, err := j.Partitions.Arrivals(ctx, f.Path)
		if err != nil {
			j.Log.Warn("a lake file's arrivals could not be read; it is read by whole days until they are", "path", f.Path, "err", err)
			continue
		}
		f.MinArrival, f.MaxArrival = &first, &last
		read = append(read, f)
	}
	if err := j.Manifest.RecordArrivals(ctx, read); err != nil {
		return 0, err
	}
	return int64(len(read)), nil
}
