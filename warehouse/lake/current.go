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
// conversations, of every run, before the current ones are chosen. The
// rows are kept apart from their keys, so that a conversation's current
// rows can be handed out as they are, without a copy, when all of its rows
// are current (as they are but after it is processed again or
// reclassified, until compaction).
type Candidates[T any] struct {
	keys []candidateKey
	rows []T // rows[i] is keyed by keys[i]
}

// candidateKey is a candidate row's conversation, run and classifier.
type candidateKey struct{ conv, run, classifier string }

// Add adds a row of conversation and run for classifier (or model).
// Rows added in conversation, classifier and run order are chosen from in
// one pass; others are sorted first.
func (c *Candidates[T]) Add(conversation, run, classifier string, row T) {
	c.keys = append(c.keys, candidateKey{conv: conversation, run: run, classifier: classifier})
	c.rows = append(c.rows, row)
}

// Len is how many rows were added.
func (c *Candidates[T]) Len() int { return len(c.keys) }

// Slice is the rows lo:hi as candidates of their own, sharing their
// memory: the rows of whole conversations, chosen from while more rows are
// added after them (results.handOver). Nothing that chooses from it writes
// the shared memory while it is Sorted.
func (c *Candidates[T]) Slice(lo, hi int) *Candidates[T] {
	return &Candidates[T]{keys: c.keys[lo:hi:hi], rows: c.rows[lo:hi:hi]}
}

// Sorted tells whether the rows are in conversation, classifier and run
// order, which choosing from them then keeps without moving a row.
func (c *Candidates[T]) Sorted() bool { return len(pieceBounds(c.keys)) <= 2 }

// Grow makes room for n more rows.
func (c *Candidates[T]) Grow(n int) {
	c.keys, c.rows = slices.Grow(c.keys, n), slices.Grow(c.rows, n)
}

// Current keeps the current rows (the rule above): per conversation that
// runs names and classifier, the row of the newest run not older than the
// conversation's current run. Each conversation's rows come in classifier
// id order.
//
// The rows arrive sorted by conversation and classifier (the files are,
// and DuckDB keeps their order; see inOrder for when it does not), so one
// pass over them decides, without a map entry per row. The slices handed
// out may be the candidates' own rows: they are read, not written.
func (c *Candidates[T]) Current(runs map[string]string) map[string][]T {
	c.sort()
	out := make(map[string][]T, len(runs))
	var kept []T
	for i := 0; i < len(c.keys); {
		end := groupEnd(c.keys, i)
		if run, ok := runs[c.keys[i].conv]; ok {
			var cur []T
			if cur, kept = c.currentOf(i, end, run, kept); len(cur) > 0 {
				out[c.keys[i].conv] = cur
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
//
// Rows in a few sorted pieces (a sparse page's join hands its threads'
// outputs over so) are chosen from where they are: each conversation's
// rows are found in each piece, and merged only when they are in more
// than one. Merging the pieces first cost a page as much again as
// choosing; rows in many pieces are merged first all the same.
func (c *Candidates[T]) CurrentOfEach(convs, runs []string) [][]T {
	pieces := c.pieces()
	out := make([][]T, len(convs))
	var kept []T
	at := make([]struct{ last, next int }, len(pieces)) // in each piece, the last conversation's rows found and the rows after them
	holding := make([]int, 0, len(pieces))              // the pieces holding a conversation's rows
	for i, conv := range convs {
		holding = holding[:0]
		for p, piece := range pieces {
			if start, found := piece.find(conv, at[p].last, at[p].next); found {
				at[p].last, at[p].next = start, groupEnd(piece.keys, start)
				holding = append(holding, p)
			}
		}
		switch len(holding) {
		case 0:
		case 1:
			p := holding[0]
			out[i], kept = pieces[p].currentOf(at[p].last, at[p].next, runs[i], kept)
		default:
			whole := &Candidates[T]{}
			for _, p := range holding {
				whole.keys = append(whole.keys, pieces[p].keys[at[p].last:at[p].next]...)
				whole.rows = append(whole.rows, pieces[p].rows[at[p].last:at[p].next]...)
			}
			whole.sort()
			out[i], kept = whole.currentOf(0, whole.Len(), runs[i], kept)
		}
	}
	return out
}

// mostPieces bounds the pieces CurrentOfEach chooses from as they are:
// each conversation is looked for in each.
const mostPieces = 8

// pieces are the rows' sorted pieces, in order (none when there are no
// rows); more than mostPieces are merged into one first.
func (c *Candidates[T]) pieces() []*Candidates[T] {
	bounds := pieceBounds(c.keys)
	if len(bounds)-1 > mostPieces {
		c.keys, c.rows = mergePieces(c.keys, c.rows, bounds)
		return []*Candidates[T]{c}
	}
	var out []*Candidates[T]
	for p := 0; p+1 < len(bounds); p++ {
		if bounds[p] < bounds[p+1] {
			out = append(out, c.Slice(bounds[p], bounds[p+1]))
		}
	}
	return out
}

// find is where a conversation's rows start. A batch asks for its
// conversations in id order, the candidates' own (the same one again for
// its rows of another run): its rows are then those found last or those
// after them, or it has none if it comes between the two; it is searched
// for only when it is asked for out of that order.
func (c *Candidates[T]) find(conv string, last, next int) (int, bool) {
	for _, at := range [2]int{last, next} {
		if at < len(c.keys) && c.keys[at].conv == conv {
			return at, true
		}
	}
	if (next == len(c.keys) || c.keys[next].conv > conv) && (next == 0 || c.keys[next-1].conv < conv) {
		return next, false
	}
	return slices.BinarySearchFunc(c.keys, conv, func(k candidateKey, conv string) int { return strings.Compare(k.conv, conv) })
}

// groupEnd is the end of the conversation's rows that start at i.
func groupEnd(keys []candidateKey, i int) int {
	end := i
	for end < len(keys) && keys[end].conv == keys[i].conv {
		end++
	}
	return end
}

// currentOf is the current rows of one conversation's rows lo:hi (sorted
// by classifier and run) when run is its current run: those rows
// themselves when every one is current, else the current ones appended to
// kept (which it returns too).
func (c *Candidates[T]) currentOf(lo, hi int, run string, kept []T) (current, _ []T) {
	keys := c.keys[lo:hi]
	all := true
	for i, k := range keys {
		if k.run < run || i > 0 && k.classifier == keys[i-1].classifier {
			all = false
			break
		}
	}
	if all {
		return c.rows[lo:hi:hi], kept
	}
	from := len(kept)
	for i := 0; i < len(keys); {
		classifier, newest := keys[i].classifier, -1
		for ; i < len(keys) && keys[i].classifier == classifier; i++ {
			if keys[i].run >= run {
				newest = i // runs ascend: the last one kept is the newest
			}
		}
		if newest >= 0 {
			kept = append(kept, c.rows[lo+newest])
		}
	}
	return kept[from:len(kept):len(kept)], kept
}

// sort puts the rows in order (inOrder), once.
func (c *Candidates[T]) sort() { c.keys, c.rows = inOrder(c.keys, c.rows) }

// inOrder returns keys and their rows sorted by key, using their memory as
// well as its own. DuckDB keeps a scan's order, but a join on a sparse
// page's ids hands over its threads' sorted outputs interleaved; files of
// re-runs not yet compacted overlap too. Either way the rows are a few
// sorted pieces, which are merged (as a natural merge sort does,
// O(n log pieces)) instead of sorted row by row, which costs a hierarchy
// page several times more.
func inOrder[T any](keys []candidateKey, rows []T) ([]candidateKey, []T) {
	return mergePieces(keys, rows, pieceBounds(keys))
}

// pieceBounds are where keys' sorted pieces start, then their end.
func pieceBounds(keys []candidateKey) []int {
	bounds := []int{0}
	for i := 1; i < len(keys); i++ {
		if compareKeys(keys[i-1], keys[i]) > 0 {
			bounds = append(bounds, i)
		}
	}
	return append(bounds, len(keys))
}

// mergePieces is inOrder for keys in the sorted pieces bounds says.
func mergePieces[T any](keys []candidateKey, rows []T, bounds []int) ([]candidateKey, []T) {
	if len(bounds) <= 2 { // one piece, or none
		return keys, rows
	}
	src := sortedPieces[T]{keys, rows}
	dst := sortedPieces[T]{make([]candidateKey, len(keys)), make([]T, len(rows))}
	for len(bounds) > 2 {
		merged := []int{0}
		for p := 0; p+1 < len(bounds); p += 2 { // piece p is bounds[p]:bounds[p+1]
			end := bounds[p+1]
			if p+2 < len(bounds) {
				end = bounds[p+2]
			}
			dst.merge(src, bounds[p], bounds[p+1], end)
			merged = append(merged, end)
		}
		bounds, src, dst = merged, dst, src
	}
	return src.keys, src.rows
}

// sortedPieces are keys and their rows in sorted pieces (inOrder).
type sortedPieces[T any] struct {
	keys []candidateKey
	rows []T
}

// merge writes the merge of src's sorted pieces lo:mid and mid:hi to
// d[lo:hi] (a piece with nothing after it, mid == hi, is copied).
func (d sortedPieces[T]) merge(src sortedPieces[T], lo, mid, hi int) {
	a, b, at := lo, mid, lo
	for ; a < mid && b < hi; at++ {
		from := a
		if compareKeys(src.keys[b], src.keys[a]) < 0 {
			from, b = b, b+1
		} else {
			a++
		}
		d.keys[at], d.rows[at] = src.keys[from], src.rows[from]
	}
	for _, r := range [][2]int{{a, mid}, {b, hi}} {
		copy(d.keys[at:], src.keys[r[0]:r[1]])
		copy(d.rows[at:], src.rows[r[0]:r[1]])
		at += r[1] - r[0]
	}
}

// compareKeys orders by conversation, classifier and run, each compared
// only when the ones before are equal (cmp.Or would compare all three
// every time).
func compareKeys(a, b candidateKey) int {
	if c := strings.Compare(a.conv, b.conv); c != 0 {
		return c
	}
	if c := strings.Compare(a.classifier, b.classifier); c != 0 {
		return c
	}
	return strings.Compare(a.run, b.run)
}
