package results

import (
	"context"
	"strings"
	"time"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/earshot/earshot/warehouse/catalog"
	"github.com/earshot/earshot/warehouse/lake"
)

// Candidates are a results table's rows for a batch of conversations, of
// every run, before the current ones are chosen (lake.Candidates).
type Candidates[T any] = lake.Candidates[T]

// Runs are the conversations' current runs, which results are chosen by
// (Candidates.Current).
func Runs(convs []Conversation) map[string]string {
	out := make(map[string]string, len(convs))
	for _, c := range convs {
		out[c.ID] = c.RunID
	}
	return out
}

// CurrentOfEach are the current results of each of a batch's lake rows
// (Candidates.CurrentOfEach): the i-th of rows[i], taking its run as
// current, chosen once all are read — what the pages' reads by row
// (currentByRow) hand over range by range.
func CurrentOfEach[T any](cands *Candidates[T], rows []Conversation) [][]T {
	ids, runs := idsAndRuns(rows)
	return cands.CurrentOfEach(ids, runs)
}

// idsAndRuns are the rows' conversation ids and runs.
func idsAndRuns(rows []Conversation) (ids, runs []string) {
	ids, runs = make([]string, len(rows)), make([]string, len(rows))
	for i, c := range rows {
		ids[i], runs[i] = c.ID, c.RunID
	}
	return ids, runs
}

// RowsOf is, for each conversation of a batch a Keep is given, its place
// among the rows the batch's Fetch was given: the batch is the rows the
// catalog's check kept, in their order.
func RowsOf(rows, batch []Conversation) []int {
	at := make([]int, len(batch))
	j := 0
	for i, c := range batch {
		for j < len(rows) && (rows[j].ID != c.ID || rows[j].RunID != c.RunID) {
			j++
		}
		at[i] = j
	}
	return at
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
	files, err := r.Manifest.ManifestFiles(ctx, catalog.ManifestQuery{OrgID: orgID, Table: table, Dates: days, MinID: lo, MaxID: hi})
	if err != nil {
		return nil, "", "", err
	}
	return catalog.Paths(files), lo, hi, nil
}

// IDs are the conversations' ids.
func IDs(convs []Conversation) []string {
	out := make([]string, len(convs))
	for i, c := range convs {
		out[i] = c.ID
	}
	return out
}

// resultsTable is how a results table's rows are read: name, its
// classifier column (key), the row's own columns, and decode, which reads
// them from a record's columns (conversation_id, run_id, key, then those)
// at a row, given the row's classifier id, already interned.
type resultsTable[T any] struct {
	name, key, columns string
	decode             func(cols []arrow.Array, i int, classifier string, in *interner) T
}

// readCandidates reads the rows of a results table for conversations of
// q's page and classifiers. The id range lets DuckDB skip row groups of
// the sorted files. A sparse page's conversations are joined on their ids
// (the range also holds others, e.g. of other hierarchy nodes); a dense
// page's range holds little else, and what it does hold is dropped here.
// h (nil for none) takes the candidates of whole conversations after each
// batch (handover.go).
func readCandidates[T any](ctx context.Context, r *Reader, q PageQuery, t resultsTable[T], convs []Conversation, classifierIDs []string, h *handOver[T]) (*Candidates[T], error) {
	out := &Candidates[T]{}
	if len(convs) == 0 || len(classifierIDs) == 0 {
		return out, nil
	}
	paths, lo, hi, err := r.resultPaths(ctx, q.OrgID, t.name, convs)
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
	list, err := r.Lake.Files(ctx, paths)
	if err != nil {
		return nil, err
	}
	query := `SELECT conversation_id, run_id, ` + t.key + `, ` + t.columns + ` FROM read_parquet(` + list + `, hive_partitioning = false)
		WHERE conversation_id BETWEEN ? AND ?`
	args := []any{lo, hi}
	if q.sparse() {
		query += ` AND conversation_id IN (SELECT unnest(?::VARCHAR[]))`
		args = append(args, convIDs)
	}
	if len(classifierIDs) <= 64 {
		query += ` AND list_contains(?::VARCHAR[], ` + t.key + `)` // a few: cheaper than a join
	} else {
		query += ` AND ` + t.key + ` IN (SELECT unnest(?::VARCHAR[]))`
	}
	args = append(args, classifierIDs)
	out.Grow(len(convs) * len(classifierIDs))
	var current string // the conversation of the row before (rows come by conversation)
	inPage := false
	var lastRun string // a conversation's rows are mostly of one run
	executed := executedHook(ctx)
	err = r.Lake.QueryArrow(ctx, func(rec arrow.RecordBatch) error {
		executed() // the result is whole before its first batch is handed over
		cols := rec.Columns()
		conv, run, classifier := cols[0].(stringColumn), cols[1].(stringColumn), cols[2].(stringColumn)
		for i := range int(rec.NumRows()) {
			if id := conv.Value(i); id != current {
				current, inPage = page[id]
				if !inPage {
					current = strings.Clone(id)
				}
				h.startsConversation(current, out.Len())
			}
			if !inPage {
				continue
			}
			if v := run.Value(i); v != lastRun {
				lastRun = in.of(v)
			}
			c := classifiers.of(classifier.Value(i))
			out.Add(current, lastRun, c, t.decode(cols, i, c, in))
		}
		h.batchEnded(out)
		return nil
	}, query, args...)
	if err != nil {
		return nil, err
	}
	return out, nil
}
