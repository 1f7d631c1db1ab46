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
	"github.com/earshot/earshot/warehouse/lakedb"
)

// CompactCatalog is what compaction needs from the catalog.
type CompactCatalog interface {
	CompactionCandidates(ctx context.Context) ([]catalog.Partition, error)
	SwapLakeFiles(ctx context.Context, runID string, old []string, replacements []catalog.LakeFile) error
	LakePaths(ctx context.Context) ([]string, error)
	RunsOfDay(ctx context.Context, orgID string, day time.Time) (map[string]string, error)
}

// LakeBucket lists and removes lake objects.
type LakeBucket interface {
	Delete(ctx context.Context, key string) error
	List(ctx context.Context, prefix string) iter.Seq2[blob.ObjectInfo, error]
}

// OrphanAge is how old a lake file outside the manifest must be before
// compaction deletes it: older than any ingest still writing (its lease).
const OrphanAge = time.Hour

// Compact merges each partition's files into one sorted file, keeping only
// every conversation's current rows (superseded runs and chats removed by a
// re-run are dropped), swaps the manifest entries in one transaction and
// then deletes the old files.
type Compact struct {
	Catalog CompactCatalog
	Engine  *lakedb.DB // reads the partitions
	Lake    LakeWriter
	Bucket  LakeBucket
	Cache   string // local copy of a remote bucket's lake, "" when none
	Log     *slog.Logger
}

// Run compacts every partition with more than one file.
func (j *Compact) Run(ctx context.Context, run catalog.JobRun) (map[string]int64, error) {
	counts := map[string]int64{"partitions": 0, "files_removed": 0, "files_written": 0, "rows": 0}
	parts, err := j.Catalog.CompactionCandidates(ctx)
	if err != nil {
		return counts, err
	}
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
		if err := j.Catalog.SwapLakeFiles(ctx, run.ID, p.Paths, files); err != nil {
			for _, f := range files {
				j.Bucket.Delete(context.WithoutCancel(ctx), f.Path)
			}
			if errors.Is(err, catalog.ErrManifestChanged) {
				continue
			}
			return counts, err
		}
		for _, old := range p.Paths { // no reader can open them any more
			lake.Evict(j.Cache, old)
			if err := j.Bucket.Delete(ctx, old); err != nil {
				j.Log.Warn("compact: old file not deleted", "path", old, "err", err)
			}
		}
		counts["partitions"]++
		counts["files_removed"] += int64(len(p.Paths))
		counts["files_written"] += int64(len(files))
		counts["rows"] += int64(batch.Rows())
	}
	removed, err := j.removeOrphans(ctx)
	counts["orphans_removed"] = removed
	return counts, err
}

// removeOrphans deletes lake files no manifest entry names — left by runs
// that crashed before committing — once they are older than OrphanAge,
// from the bucket and from the local cache of a remote bucket.
// The manifest is read once, before listing: a file committed after that
// is younger than the cutoff, so it is never a candidate.
func (j *Compact) removeOrphans(ctx context.Context) (int64, error) {
	var removed int64
	cutoff := time.Now().Add(-OrphanAge)
	paths, err := j.Catalog.LakePaths(ctx)
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

// currentRuns is the FROM clause of a partition's files joined to the
// current run of each conversation, which the catalog gives as two bound
// lists (ids and runs) for DuckDB to zip.
func (j *Compact) currentRuns(paths []string) string {
	return `read_parquet(` + j.Engine.FileList(paths) + `, hive_partitioning = false) l
		JOIN (SELECT unnest(?::VARCHAR[]) AS id, unnest(?::VARCHAR[]) AS lake_run_id) i ON i.id = l.conversation_id`
}

// currentResults is the FROM clause of a results table's current rows: per
// conversation and classifier, the newest run not older than the
// conversation's own run (a reclassification replaces the ingest's result;
// a later re-ingestion replaces both).
func (j *Compact) currentResults(paths []string, classifier string) string {
	return j.currentRuns(paths) + ` AND l.run_id >= i.lake_run_id
		QUALIFY row_number() OVER (PARTITION BY l.conversation_id, l.` + classifier + ` ORDER BY l.run_id DESC) = 1`
}

// read loads a partition's current rows: only each conversation's current
// run (its run in the catalog).
func (j *Compact) read(ctx context.Context, p catalog.Partition) (lake.Batch, error) {
	var b lake.Batch
	runs, err := j.Catalog.RunsOfDay(ctx, p.OrgID, p.Date)
	if err != nil {
		return b, err
	}
	ids, runIDs := make([]string, 0, len(runs)), make([]string, 0, len(runs))
	for id, run := range runs {
		ids, runIDs = append(ids, id), append(runIDs, run)
	}
	from := j.currentRuns(p.Paths) + ` AND i.lake_run_id = l.run_id`
	db := j.Engine.SQL()
	switch p.Table {
	case lake.TableConversations:
		rows, err := db.QueryContext(ctx, `SELECT l.conversation_id, l.run_id, l.org_id, l.upload_id, l.media_type, l.file_name,
			l.arrived_on, l.interaction_date, l.hierarchy_node_id, l.agent_id, l.agent_code, l.client_call_id, l.call_direction,
			l.locale_id, l.call_duration_millis, l.chat_message_count, l.extended_metadata, l.transcript_mode,
			l.transcript_engine, l.transcript_model FROM `+from, ids, runIDs)
		if err != nil {
			return b, err
		}
		defer rows.Close()
		for rows.Next() {
			var c lake.Conversation
			if err := rows.Scan(&c.ID, &c.RunID, &c.OrgID, &c.UploadID, &c.MediaType, &c.FileName, &c.ArrivedOn, &c.InteractionDate,
				&c.HierarchyNodeID, &c.AgentID, &c.AgentCode, &c.ClientCallID, &c.CallDirection, &c.LocaleID, &c.CallDurationMillis,
				&c.ChatMessageCount, &c.ExtendedMetadata, &c.TranscriptMode, &c.TranscriptEngine, &c.TranscriptModel); err != nil {
				return b, err
			}
			c.ArrivedOn = c.ArrivedOn.UTC()
			b.Conversations = append(b.Conversations, c)
		}
		return b, rows.Err()
	case lake.TableSegments:
		rows, err := db.QueryContext(ctx, `SELECT l.conversation_id, l.run_id, l.org_id, l.segment_index, l.speaker, l.start_ms,
			l.end_ms, l.text, l.confidence, l.words FROM `+from, ids, runIDs)
		if err != nil {
			return b, err
		}
		defer rows.Close()
		for rows.Next() {
			s := lake.Segment{ArrivedOn: p.Date}
			var words []any
			if err := rows.Scan(&s.ConversationID, &s.RunID, &s.OrgID, &s.Index, &s.Speaker, &s.StartMs, &s.EndMs, &s.Text,
				&s.Confidence, &words); err != nil {
				return b, err
			}
			for _, w := range words {
				m, _ := w.(map[string]any)
				var wd lake.Word
				wd.Word, _ = m["word"].(string)
				wd.StartMs, _ = m["start_ms"].(int64)
				wd.EndMs, _ = m["end_ms"].(int64)
				wd.Confidence, _ = m["confidence"].(float32)
				s.Words = append(s.Words, wd)
			}
			b.Segments = append(b.Segments, s)
		}
		return b, rows.Err()
	case lake.TableClassifierResults:
		rows, err := db.QueryContext(ctx, `SELECT l.conversation_id, l.run_id, l.org_id, l.classifier_id, l.classifier_version,
			l.classifier_type, l.category_name, l.result, l.reasoning, l.score, l.evidence FROM `+j.currentResults(p.Paths, "classifier_id"), ids, runIDs)
		if err != nil {
			return b, err
		}
		defer rows.Close()
		for rows.Next() {
			r := lake.ClassifierResult{ArrivedOn: p.Date}
			var evidence []any
			if err := rows.Scan(&r.ConversationID, &r.RunID, &r.OrgID, &r.ClassifierID, &r.Version, &r.Type, &r.Category, &r.Result,
				&r.Reasoning, &r.Score, &evidence); err != nil {
				return b, err
			}
			for _, e := range evidence {
				m, _ := e.(map[string]any)
				var ev lake.Evidence
				ev.Turn, _ = m["turn"].(int32)
				ev.StartMs, _ = m["start_ms"].(int64)
				ev.EndMs, _ = m["end_ms"].(int64)
				ev.Text, _ = m["text"].(string)
				r.Evidence = append(r.Evidence, ev)
			}
			b.ClassifierResults = append(b.ClassifierResults, r)
		}
		return b, rows.Err()
	case lake.TableModelResults:
		rows, err := db.QueryContext(ctx, `SELECT l.conversation_id, l.run_id, l.org_id, l.event_type, l.event_time, l.model_id,
			l.model_version, l.result, l.text_result FROM `+j.currentResults(p.Paths, "model_id"), ids, runIDs)
		if err != nil {
			return b, err
		}
		defer rows.Close()
		for rows.Next() {
			r := lake.ModelResult{ArrivedOn: p.Date}
			if err := rows.Scan(&r.ConversationID, &r.RunID, &r.OrgID, &r.EventType, &r.EventTime, &r.ModelID, &r.Version,
				&r.Result, &r.TextResult); err != nil {
				return b, err
			}
			r.EventTime = r.EventTime.UTC()
			b.ModelResults = append(b.ModelResults, r)
		}
		return b, rows.Err()
	}
	return b, fmt.Errorf("unknown lake table %q", p.Table)
}
