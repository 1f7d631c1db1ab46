package jobs

import (
	"context"
	"iter"
	"log/slog"
	"time"

	"github.com/earshot/earshot/warehouse/blob"
	"github.com/earshot/earshot/warehouse/catalog"
)

// JanitorAge is how long a temporary file or an unnamed staged object is
// left alone before the janitor removes it: longer than any write still
// going on, or any upload between its staging and its record.
const JanitorAge = time.Hour

// janitorBatch is how many staged keys are looked up at once.
const janitorBatch = 500

// TempSweeper removes the temporary files of writes that never finished
// (blob.Local; a GCS bucket has none).
type TempSweeper interface {
	SweepTemp(before time.Time) (files int, bytes int64, err error)
}

// StagedObjects lists and removes staged uploads (blob.Bucket).
type StagedObjects interface {
	List(ctx context.Context, prefix string) iter.Seq2[blob.ObjectInfo, error]
	Delete(ctx context.Context, key string) error
}

// StagedNames says which staged keys a record names
// (catalog.InteractionStore).
type StagedNames interface {
	NamedStagedKeys(ctx context.Context, keys []string) (map[string]bool, error)
}

// Janitor reclaims the disk that interrupted work leaves behind and no
// other job removes: temporary files of writes that never finished, and
// staged uploads no record names (a process killed between the staging
// and the record). What it removes is older than JanitorAge, and logged.
// Lake files no manifest names are compaction's (OrphanAge).
type Janitor struct {
	Temp   TempSweeper // nil: the bucket has no temporary files
	Staged StagedObjects
	Names  StagedNames
	Log    *slog.Logger
}

func (j *Janitor) Run(ctx context.Context, _ catalog.JobRun) (map[string]int64, error) {
	counts := map[string]int64{"temp_files_removed": 0, "temp_bytes_removed": 0, "staged_orphans_removed": 0, "staged_bytes_removed": 0}
	before := time.Now().Add(-JanitorAge)
	if j.Temp != nil {
		files, bytes, err := j.Temp.SweepTemp(before)
		counts["temp_files_removed"], counts["temp_bytes_removed"] = int64(files), bytes
		if files > 0 {
			j.Log.Info("removed the temporary files of unfinished writes", "files", files, "bytes", bytes)
		}
		if err != nil {
			return counts, err
		}
	}
	var old []blob.ObjectInfo
	for o, err := range j.Staged.List(ctx, "staging/") {
		if err != nil {
			return counts, err
		}
		if o.Modified.Before(before) {
			old = append(old, o)
		}
		if len(old) == janitorBatch {
			if err := j.removeOrphans(ctx, old, counts); err != nil {
				return counts, err
			}
			old = old[:0]
		}
	}
	return counts, j.removeOrphans(ctx, old, counts)
}

// removeOrphans removes the staged objects no record names.
func (j *Janitor) removeOrphans(ctx context.Context, objects []blob.ObjectInfo, counts map[string]int64) error {
	if len(objects) == 0 {
		return nil
	}
	keys := make([]string, len(objects))
	for i, o := range objects {
		keys[i] = o.Key
	}
	named, err := j.Names.NamedStagedKeys(ctx, keys)
	if err != nil {
		return err
	}
	for _, o := range objects {
		if named[o.Key] {
			continue
		}
		if err := j.Staged.Delete(ctx, o.Key); err != nil {
			return err
		}
		counts["staged_orphans_removed"]++
		counts["staged_bytes_removed"] += o.Size
		j.Log.Info("removed a staged upload no record names", "key", o.Key, "bytes", o.Size, "modified", o.Modified)
	}
	return nil
}
