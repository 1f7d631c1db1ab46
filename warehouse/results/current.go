package results

import (
	"context"
	"strings"
	"time"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/earshot/earshot/warehouse/catalog"
)

// Candidates are the lake rows of a results table for a batch of
// conversations, every run's, before the current ones are chosen.
type Candidates[T any] struct {
	rows []candidate[T]
}

type candidate[T any] struct {
	conv, run, classifier string
	row                   T
}

// Current keeps, per conversation of convs and classifier, the row of the
// newest run not older than the conversation's own run: a
// reclassification replaces the ingest's result, a later re-ingestion
// replaces both (the rule compaction applies too). Each conversation's
// rows come in classifier id order.
//
// The rows arrive sorted by conversation and classifier (the files are,
// and DuckDB keeps their order; see inOrder for when it does not), so one
// pass over them decides, without a map entry per row.
func (c *Candidates[T]) Current(convs []Conversation) map[string][]T {
	rows := inOrder(c.rows)
	convRun := make(map[string]string, len(convs))
	for _, conv := range convs {
		convRun[conv.ID] = conv.RunID
	}
	out := make(map[string][]T, len(convs))
	kept := make([]T, 0, len(rows))
	for i := 0; i < len(rows); {
		conv := rows[i].conv
		end := i
		for end < len(rows) && rows[end].conv == conv {
			end++
		}
		run, ok := convRun[conv]
		start := len(kept)
		for ok && i < end {
			classifier, newest := rows[i].classifier, -1
			for ; i < end && rows[i].classifier == classifier; i++ {
				if rows[i].run >= run {
					newest = i // runs ascend: the last one kept is the newest
				}
			}
			if newest >= 0 {
				kept = append(kept, rows[newest].row)
			}
		}
		if len(kept) > start {
			out[conv] = kept[start:len(kept):len(kept)]
		}
		i = end
	}
	return out
}

// inOrder returns rows sorted, using rows' memory as well as its own.
// DuckDB keeps a scan's order, but a join on a sparse page's ids hands
// over its threads' sorted outputs interleaved; files of re-runs not yet
// compacted overlap too. Either way the rows are a few sorted pieces, which
// are merged (as a natural merge sort does, O(n log pieces)) instead of
// sorted row by row: sorting a hierarchy page's 20,000 rows took 10–25 ms,
// merging its two pieces takes ~1.
func inOrder[T any](rows []candidate[T]) []candidate[T] {
	var pieces [][]candidate[T]
	start := 0
	for i := 1; i <= len(rows); i++ {
		if i == len(rows) || compareCandidates(rows[i-1], rows[i]) > 0 {
			pieces = append(pieces, rows[start:i])
			start = i
		}
	}
	if len(pieces) <= 1 {
		return rows
	}
	src, dst := rows, make([]candidate[T], len(rows))
	for len(pieces) > 1 {
		var merged [][]candidate[T] // pieces still points into src
		at := 0
		for i := 0; i < len(pieces); i += 2 {
			out := dst[at:at]
			if i+1 == len(pieces) {
				out = append(out, pieces[i]...)
			} else {
				out = mergeCandidates(out, pieces[i], pieces[i+1])
			}
			merged = append(merged, out)
			at += len(out)
		}
		pieces, src, dst = merged, dst, src
	}
	return src
}

// mergeCandidates appends the merge of two sorted runs to out.
func mergeCandidates[T any](out, a, b []candidate[T]) []candidate[T] {
	for len(a) > 0 && len(b) > 0 {
		if compareCandidates(b[0], a[0]) < 0 {
			out, b = append(out, b[0]), b[1:]
		} else {
			out, a = append(out, a[0]), a[1:]
		}
	}
	return append(append(out, a...), b...)
}

// compareCandidates orders by conversation, classifier and run, each
// compared only when the ones before are equal (cmp.Or would compare all
// three every time).
func compareCandidates[T any](a, b candidate[T]) int {
	if c := strings.Compare(a.conv, b.conv); c != 0 {
		return c
	}
	if c := strings.Compare(a.classifier, b.classifier); c != 0 {
		return c
	}
	return strings.Compare(a.run, b.run)
}

// resultPaths are the files of a results table that can hold rows of the
// conversations: their arrival dates, their id range. lo and hi bound the
// ids.
func (r *Reader) resultPaths(ctx context.Context, orgID, table string, convs []Conversation) (paths []string, lo, hi string, err error) {
	seen := map[time.Time]bool{}
	var days []time.Time
	for i, c := range convs {
		if i == 0 {
			lo, hi = c.ID, c.ID
		}
		lo, hi = min(lo, c.ID), max(hi, c.ID)
		day := c.ArrivedOn.UTC().Truncate(24 * time.Hour)
		if !seen[day] {
			seen[day] = true
			days = append(days, day)
		}
	}
	files, err := r.Manifest.ManifestFiles(ctx, catalog.ManifestQuery{OrgID: orgID, Table: table, Dates: days, MaxID: hi})
	if err != nil {
		return nil, "", "", err
	}
	for _, f := range files {
		if f.MaxID >= lo {
			paths = append(paths, f.Path)
		}
	}
	return paths, lo, hi, nil
}

// IDs are the conversations' ids.
func IDs(convs []Conversation) []string {
	out := make([]string, len(convs))
	for i, c := range convs {
		out[i] = c.ID
	}
	return out
}

// readCandidates reads the rows of a results table for conversations of
// q's page and classifiers (key names the table's classifier column):
// columns are conversation_id, run_id, key, then the row's own, which
// decode reads from the record's columns at a row (given the row's
// classifier id, already interned). The id range lets
// DuckDB skip row groups of the sorted files. A sparse page's
// conversations are joined on their ids (the range also holds others,
// e.g. of other hierarchy nodes); a dense page's range holds little else,
// and what it does hold is dropped here.
func readCandidates[T any](ctx context.Context, r *Reader, q PageQuery, table, key, columns string, convs []Conversation, classifierIDs []string,
	decode func(cols []arrow.Array, i int, classifier string, in *interner) T) (*Candidates[T], error) {
	out := &Candidates[T]{}
	if len(convs) == 0 || len(classifierIDs) == 0 {
		return out, nil
	}
	paths, lo, hi, err := r.resultPaths(ctx, q.OrgID, table, convs)
	if err != nil || len(paths) == 0 {
		return out, err
	}
	convIDs := IDs(convs)
	page := make(map[string]string, len(convIDs))
	for _, id := range convIDs {
		page[id] = id
	}
	in := newInterner() // conversation and classifier ids come from page and classifiers
	classifiers := newCycle(classifierIDs, in)
	query := `SELECT conversation_id, run_id, ` + key + `, ` + columns + ` FROM read_parquet(` + r.Lake.FileList(paths) + `, hive_partitioning = false)
		WHERE conversation_id BETWEEN ? AND ?`
	args := []any{lo, hi}
	if q.sparse() {
		query += ` AND conversation_id IN (SELECT unnest(?::VARCHAR[]))`
		args = append(args, convIDs)
	}
	if len(classifierIDs) <= 64 {
		query += ` AND list_contains(?::VARCHAR[], ` + key + `)` // a few: cheaper than a join
	} else {
		query += ` AND ` + key + ` IN (SELECT unnest(?::VARCHAR[]))`
	}
	args = append(args, classifierIDs)
	out.rows = make([]candidate[T], 0, len(convs)*len(classifierIDs))
	var current string // the conversation of the row before (rows come by conversation)
	inPage := false
	var lastRun string // a conversation's rows are mostly of one run
	err = r.Lake.QueryArrow(ctx, func(rec arrow.RecordBatch) error {
		cols := rec.Columns()
		conv, run, classifier := cols[0].(stringColumn), cols[1].(stringColumn), cols[2].(stringColumn)
		for i := range int(rec.NumRows()) {
			if id := conv.Value(i); id != current {
				current, inPage = page[id]
				if !inPage {
					current = strings.Clone(id)
				}
			}
			if !inPage {
				continue
			}
			if v := run.Value(i); v != lastRun {
				lastRun = in.of(v)
			}
			c := classifiers.of(classifier.Value(i))
			out.rows = append(out.rows, candidate[T]{conv: current, run: lastRun, classifier: c, row: decode(cols, i, c, in)})
		}
		return nil
	}, query, args...)
	if err != nil {
		return nil, err
	}
	return out, nil
}
