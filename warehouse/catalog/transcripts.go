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

// Transcript reads a conversation's current segments: only the manifest's
// files of its organization and arrival date, only the rows of its current
// run.
func (c *Catalog) Transcript(ctx context.Context, orgID string, it Interaction) ([]TranscriptSegment, error) {
	var run *string
	if err := c.db.QueryRowContext(ctx, `SELECT lake_run_id FROM interactions WHERE org_id = ? AND id = ?`, orgID, it.ID).Scan(&run); err != nil {
		return nil, err
	}
	if run == nil {
		return nil, ErrNotInLake
	}
	day := it.ArrivedOn.UTC().Truncate(24 * time.Hour)
	files, err := c.LakeFiles(ctx, orgID, "transcript_segments", day, day)
	if err != nil {
		return nil, err
	}
	var paths []string
	for _, f := range files {
		if f.MinID <= it.ID && it.ID <= f.MaxID {
			paths = append(paths, sqlString(filepath.Join(c.lakeRoot, filepath.FromSlash(f.Path))))
		}
	}
	if len(paths) == 0 {
		return nil, ErrNotInLake
	}
	// File paths come from the manifest (never from a request) and are
	// quoted; the ids are bound parameters.
	rows, err := c.db.QueryContext(ctx, `SELECT speaker, start_ms, end_ms, text, confidence, words
		FROM read_parquet([`+strings.Join(paths, ", ")+`])
		WHERE conversation_id = ? AND run_id = ? ORDER BY segment_index`, it.ID, *run)
	if err != nil {
		return nil, fmt.Errorf("read transcript: %w", err)
	}
	defer rows.Close()
	out := []TranscriptSegment{}
	for rows.Next() {
		var s TranscriptSegment
		var words []any
		if err := rows.Scan(&s.Speaker, &s.StartMs, &s.EndMs, &s.Text, &s.Confidence, &words); err != nil {
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
		out = append(out, s)
	}
	return out, rows.Err()
}

// sqlString quotes a string as a SQL literal.
func sqlString(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }
