package results

import (
	"context"
	"fmt"
	"time"

	"github.com/earshot/earshot/warehouse/catalog"
	"github.com/earshot/earshot/warehouse/lake"
)

// Transcript reads one conversation's current segments.
func (r *Reader) Transcript(ctx context.Context, orgID string, it catalog.Interaction) ([]catalog.TranscriptSegment, error) {
	all, err := r.Transcripts(ctx, orgID, []catalog.Interaction{it})
	if err != nil {
		return nil, err
	}
	segs, ok := all[it.ID]
	if !ok {
		return nil, catalog.ErrNotInLake
	}
	return segs, nil
}

// Transcripts reads the current segments of many conversations of an
// organization at once: only the manifest's files of their arrival dates
// whose id range can hold them, only the rows of each one's current run,
// one query for all. Conversations without committed rows are absent from
// the result.
func (r *Reader) Transcripts(ctx context.Context, orgID string, its []catalog.Interaction) (map[string][]catalog.TranscriptSegment, error) {
	out := map[string][]catalog.TranscriptSegment{}
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
	runs, err := r.Conversations.CurrentRuns(ctx, orgID, ids)
	if err != nil || len(runs) == 0 {
		return out, err
	}
	files, err := r.Manifest.LakeFiles(ctx, orgID, "transcript_segments", from, to)
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
	// File paths come from the manifest (never from a request) and are
	// quoted; the ids are bound parameters.
	list, err := r.Lake.Files(ctx, paths)
	if err != nil {
		return nil, err
	}
	rows, err := r.Lake.QueryContext(ctx, `SELECT conversation_id, run_id, speaker, start_ms, end_ms, text, confidence, words
		FROM read_parquet(`+list+`)
		WHERE conversation_id IN (SELECT unnest(?::VARCHAR[])) ORDER BY conversation_id, segment_index`, ids)
	if err != nil {
		return nil, fmt.Errorf("read transcripts: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var id, run string
		var s catalog.TranscriptSegment
		var words []any
		if err := rows.Scan(&id, &run, &s.Speaker, &s.StartMs, &s.EndMs, &s.Text, &s.Confidence, &words); err != nil {
			return nil, err
		}
		if !lake.IsCurrent(runs, id, run) {
			continue
		}
		for _, w := range lake.ListWords(words) {
			s.Words = append(s.Words, catalog.TranscriptWord(w))
		}
		out[id] = append(out[id], s)
	}
	return out, rows.Err()
}
