package lake

import (
	"slices"
	"strings"
)

// Which lake rows are current. A conversation is written again when its
// upload is processed again (a new run), and its results again when a
// classifier is run over it again (a reclassification); the files keep
// every run's rows until compaction drops the superseded ones. Every
// reader of the lake applies this one rule, written here: the API's pages
// and transcripts (warehouse/results) and compaction (warehouse/lakedb)
// in Go with the catalog's runs, the rest in SQL (below).
//
//   - A conversation's own rows (conversations, transcript_segments) are
//     current when they are of its current run, which the catalog names:
//     the run that last processed its upload. A conversation the catalog
//     names no run for (an archive's chat that a later run of the archive
//     no longer has) has no current rows.
//   - A result row (classifier_results, model_results) is current when it
//     is, of the conversation's rows for its classifier (or model), the one
//     of the newest run not older than the conversation's current run: a
//     reclassification replaces the ingest's result, and processing the
//     conversation again replaces both.

// In SQL, for the readers without the catalog — the dashboards' figures,
// totals, the analysts' views (sql/views) and the DDL for other engines
// (warehouse/ddl) — the same rule reads: a conversations row is current
// when its run is the newest of its upload's rows (an archive's chats keep
// their ids when it is processed again, pipeline.Chats.Earlier, so a chat a
// later run no longer has is left with none), or of the conversation's own
// when it has no upload; a results row as above. These are the only
// places the rule is written in SQL; every statement takes them from here.

// ConversationRunSQL is, on a conversations row, its conversation's
// current run (a window: compare run_id to it in QUALIFY, or in an outer
// WHERE where the engine has no QUALIFY).
const ConversationRunSQL = "max(run_id) OVER (PARTITION BY coalesce(upload_id, conversation_id))"

// ResultRankSQL ranks a results row (named r) among its conversation's
// rows of the same classifier (or model: column), newest run first: among
// those not older than the conversation's current run, rank 1 is current.
func ResultRankSQL(column string) string {
	return "row_number() OVER (PARTITION BY r.conversation_id, r." + column + " ORDER BY r.run_id DESC)"
}

// IsCurrent tells whether a conversation's own row of run is current,
// given the current runs by conversation id.
func IsCurrent(runs map[string]string, conversationID, run string) bool {
	current, ok := runs[conversationID]
	return ok && run == current
}

// Candidates are the rows of a results table for a batch of
// conversations, of every run, before the current ones are chosen.
type Candidates[T any] struct {
	rows []candidate[T]
}

type candidate[T any] struct {
	conv, run, classifier string
	row                   T
}

// Add adds a row of conversation and run for classifier (or model).
// Rows added in conversation, classifier and run order are chosen from in
// one pass; others are sorted first.
func (c *Candidates[T]) Add(conversation, run, classifier string, row T) {
	c.rows = append(c.rows, candidate[T]{conv: conversation, run: run, classifier: classifier, row: row})
}

// Len is how many rows were added.
func (c *Candidates[T]) Len() int { return len(c.rows) }

// Grow makes room for n more rows.
func (c *Candidates[T]) Grow(n int) { c.rows = slices.Grow(c.rows, n) }

// Current keeps the current rows (the rule above): per conversation that
// runs names and classifier, the row of the newest run not older than the
// conversation's current run. Each conversation's rows come in classifier
// id order.
//
// The rows arrive sorted by conversation and classifier (the files are,
// and DuckDB keeps their order; see inOrder for when it does not), so one
// pass over them decides, without a map entry per row.
func (c *Candidates[T]) Current(runs map[string]string) map[string][]T {
	rows := inOrder(c.rows)
	out := make(map[string][]T, len(runs))
	kept := make([]T, 0, len(rows))
	for i := 0; i < len(rows); {
		end := groupEnd(rows, i)
		if run, ok := runs[rows[i].conv]; ok {
			start := len(kept)
			if kept = appendCurrent(kept, rows[i:end], run); len(kept) > start {
				out[rows[i].conv] = kept[start:len(kept):len(kept)]
			}
		}
		i = end
	}
	return out
}

// CurrentOfEach is Current for a list of conversations, each given with
// the run to take as its current one (convs[i] with runs[i]): the list
// may name a conversation more than once with different runs, as a
// batch of lake rows does before the catalog says which run is current.
// The i-th slice holds the current rows of the i-th; no map is built.
func (c *Candidates[T]) CurrentOfEach(convs, runs []string) [][]T {
	rows := inOrder(c.rows)
	out := make([][]T, len(convs))
	kept := make([]T, 0, len(rows))
	for i, conv := range convs {
		start, found := slices.BinarySearchFunc(rows, conv, func(r candidate[T], conv string) int { return strings.Compare(r.conv, conv) })
		if !found {
			continue
		}
		from := len(kept)
		kept = appendCurrent(kept, rows[start:groupEnd(rows, start)], runs[i])
		out[i] = kept[from:len(kept):len(kept)]
	}
	return out
}

// groupEnd is the end of the conversation's rows that start at i.
func groupEnd[T any](rows []candidate[T], i int) int {
	end := i
	for end < len(rows) && rows[end].conv == rows[i].conv {
		end++
	}
	return end
}

// appendCurrent appends to kept the current rows of one conversation's
// rows (sorted by classifier and run) when run is its current run.
func appendCurrent[T any](kept []T, rows []candidate[T], run string) []T {
	for i := 0; i < len(rows); {
		classifier, newest := rows[i].classifier, -1
		for ; i < len(rows) && rows[i].classifier == classifier; i++ {
			if rows[i].run >= run {
				newest = i // runs ascend: the last one kept is the newest
			}
		}
		if newest >= 0 {
			kept = append(kept, rows[newest].row)
		}
	}
	return kept
}

// inOrder returns rows sorted, using rows' memory as well as its own.
// DuckDB keeps a scan's order, but a join on a sparse page's ids hands
// over its threads' sorted outputs interleaved; files of re-runs not yet
// compacted overlap too. Either way the rows are a few sorted pieces, which
// are merged (as a natural merge sort does, O(n log pieces)) instead of
// sorted row by row, which costs a hierarchy page several times more.
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
