package catalog

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"time"
)

// TranscriptSegment is one turn read back from the lake.
type TranscriptSegment struct {
	Speaker    string
	StartMs    int64
	EndMs      int64
	Text       string
	Confidence *float32
	Words      []TranscriptWord
}

// TranscriptWord is one word of a segment.
type TranscriptWord struct {
	Word       string
	StartMs    int64
	EndMs      int64
	Confidence float32
}

// SetLakeRoot names the local directory that holds the lake's files (the
// bucket directory, or the local cache of a remote bucket).
func (c *Catalog) SetLakeRoot(dir string) { c.lakeRoot = dir }

// ErrNotInLake: the conversation has no committed lake rows.
var ErrNotInLake = errors.New("conversation has no committed transcript")

// Transcript reads one conversation's current segments.
func (c *Catalog) Transcript(ctx context.Context, orgID string, it Interaction) ([]TranscriptSegment, error) {
	all, err := c.Transcripts(ctx, orgID, []Interaction{it})
	if err != nil {
		return nil, err
	}
	segs, ok := all[it.ID]
	if !ok {
		return nil, ErrNotInLake
	}
	return segs, nil
}

// Transcripts reads the current segments of many conversations of an
// organization at once: only the manifest's files of their arrival dates
// whose id range can hold them, only the rows of each one's current run,
// one query for all. Conversations without committed rows are absent from
// the result.
func (c *Catalog) Transcripts(ctx context.Context, orgID string, its []Interaction) (map[string][]TranscriptSegment, error) {
	out := map[string][]TranscriptSegment{}
	if len(its) == 0 {
		return out, nil
	}
	ids := make([]string, len(its))
	var from, to time.Time
	for i, it := range its {
		ids[i] = it.ID
		day := it.ArrivedOn.UTC().Truncate(24 * time.Hour)
		if i == 0 || day.Before(from) {
			from = day
		}
		if i == 0 || day.After(to) {
			to = day
		}
	}
	runs := map[string]string{}
	rows, err := c.db.QueryContext(ctx, `SELECT id, lake_run_id FROM interactions
		WHERE org_id = ? AND list_contains(?, id) AND lake_run_id IS NOT NULL`, orgID, ids)
	if err != nil {
		return nil, err
	}
	for rows.Next() {
		var id, run string
		if err := rows.Scan(&id, &run); err != nil {
			rows.Close()
			return nil, err
		}
		runs[id] = run
	}
	rows.Close()
	if len(runs) == 0 {
		return out, nil
	}
	files, err := c.LakeFiles(ctx, orgID, "transcript_segments", from, to)
	if err != nil {
		return nil, err
	}
	var paths []string
	for _, f := range files {
		for _, it := range its {
			if _, ok := runs[it.ID]; ok && f.MinID <= it.ID && it.ID <= f.MaxID {
				paths = append(paths, f.Path)
				break
			}
		}
	}
	if len(paths) == 0 {
		return out, nil
	}
	var pairs []string
	for id, run := range runs {
		pairs = append(pairs, id+"/"+run)
	}
	// File paths come from the manifest (never from a request) and are
	// quoted; the ids are bound parameters.
	rows, err = c.db.QueryContext(ctx, `SELECT conversation_id, speaker, start_ms, end_ms, text, confidence, words
		FROM read_parquet(`+c.LakeFileList(paths)+`)
		WHERE list_contains(?, conversation_id || '/' || run_id) ORDER BY conversation_id, segment_index`, pairs)
	if err != nil {
		return nil, fmt.Errorf("read transcripts: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var id string
		var s TranscriptSegment
		var words []any
		if err := rows.Scan(&id, &s.Speaker, &s.StartMs, &s.EndMs, &s.Text, &s.Confidence, &words); err != nil {
			return nil, err
		}
		for _, w := range words {
			m, _ := w.(map[string]any)
			tw := TranscriptWord{}
			tw.Word, _ = m["word"].(string)
			tw.StartMs, _ = m["start_ms"].(int64)
			tw.EndMs, _ = m["end_ms"].(int64)
			tw.Confidence, _ = m["confidence"].(float32)
			s.Words = append(s.Words, tw)
		}
		out[id] = append(out[id], s)
	}
	return out, rows.Err()
}

// LakeFileList is the SQL list literal of lake files (manifest paths, never
// request input) for read_parquet: local paths under the lake root, quoted.
func (c *Catalog) LakeFileList(paths []string) string { return FileList(c.lakeRoot, paths) }

// FileList is the SQL list literal of files under root, given by their
// /-separated paths relative to it.
func FileList(root string, paths []string) string {
	quoted := make([]string, len(paths))
	for i, p := range paths {
		quoted[i] = SQLString(filepath.Join(root, filepath.FromSlash(p)))
	}
	return "[" + strings.Join(quoted, ", ") + "]"
}

// SQLString quotes a string as a SQL literal.
func SQLString(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }
