package results

import (
	"context"
	"sync"
)

// A page's results are chosen and laid out while DuckDB still hands the
// rest of them over. DuckDB hands a result over a batch at a time on one
// thread, after executing it; the rows of a dense page's results come in
// conversation order (its files are sorted, and a scan keeps their order),
// so when a batch ends, every conversation before its last one has all its
// rows, and their current results can be chosen (and written, by the
// page) on another core meanwhile. A sparse page's join hands its rows
// over interleaved: its results are chosen once all are read, as they are
// wherever rows turn out to come out of order (files of re-runs not yet
// compacted).

// handOver takes a results read's candidates as their conversations are
// whole: readCandidates tells it where each conversation's rows start
// (startsConversation) and when a batch ends (batchEnded).
type handOver[T any] struct {
	wholes      chan whole[T]
	handed      int    // candidates handed on so far
	current     string // the conversation read last
	currentFrom int    // where its candidates start
	disordered  bool   // a conversation came after a later one
}

// whole is the candidates of whole conversations: of every conversation
// before `before`, after those handed on before.
type whole[T any] struct {
	cands  *Candidates[T]
	before string
}

// wholesAtOnce bounds the wholes waiting to be chosen from: a batch that
// finds them all waiting hands its conversations on with the next one's.
const wholesAtOnce = 16

// startsConversation notes that the rows of conv, another conversation
// than the row before's, start at the at-th candidate.
func (h *handOver[T]) startsConversation(conv string, at int) {
	if h == nil {
		return
	}
	h.disordered = h.disordered || conv < h.current
	h.current, h.currentFrom = conv, at
}

// batchEnded hands on the candidates of the conversations before the one
// read last, unless the rows came out of order. It never waits: DuckDB's
// hand-over goes on.
func (h *handOver[T]) batchEnded(out *Candidates[T]) {
	if h == nil || h.disordered || h.currentFrom == h.handed {
		return
	}
	select {
	case h.wholes <- whole[T]{cands: out.Slice(h.handed, h.currentFrom), before: h.current}:
		h.handed = h.currentFrom
	default:
	}
}

// resultsByRow reads table's current results of each of rows
// (currentByRow), choosing them as they are read where the rows come in
// order: a dense page's.
func resultsByRow[T any](ctx context.Context, r *Reader, q PageQuery, table resultsTable[T], rows []Conversation, classifierIDs []string, each func(lo int, current [][]T)) error {
	return currentByRow(rows, !q.sparse(), func(h *handOver[T]) (*Candidates[T], error) {
		return readCandidates(ctx, r, q, table, rows, classifierIDs, h)
	}, each)
}

// currentByRow is the current results of each of a batch's lake rows
// (CurrentOfEach) of what read reads, handed to each a range of rows at a
// time (from lo, in order, the ranges together all rows): with a handOver
// (inOrder), the rows of whole conversations while read goes on. each is
// called by one goroutine at a time; when the rows turned out to come out
// of order, it is called once more, for all rows, after the others, and
// what it did before is to be replaced.
func currentByRow[T any](rows []Conversation, inOrder bool, read func(*handOver[T]) (*Candidates[T], error), each func(lo int, current [][]T)) error {
	ids, runs := idsAndRuns(rows)
	if !inOrder {
		cands, err := read(nil)
		if err == nil {
			each(0, cands.CurrentOfEach(ids, runs))
		}
		return err
	}
	h := &handOver[T]{wholes: make(chan whole[T], wholesAtOnce)}
	var lo, taken int // the rows and the candidates given to each
	void := false     // a whole was not sorted: choosing from it would move rows read meanwhile
	var chose sync.WaitGroup
	chose.Go(func() {
		for w := range h.wholes {
			if void = void || !w.cands.Sorted(); void {
				continue
			}
			hi := lo
			for hi < len(rows) && rows[hi].ID < w.before {
				hi++
			}
			if hi > lo {
				each(lo, w.cands.CurrentOfEach(ids[lo:hi], runs[lo:hi]))
			}
			lo, taken = hi, taken+w.cands.Len()
		}
	})
	cands, err := read(h)
	close(h.wholes)
	chose.Wait()
	switch {
	case err != nil:
		return err
	case void || h.disordered:
		each(0, cands.CurrentOfEach(ids, runs))
	case lo < len(rows):
		each(lo, cands.Slice(taken, cands.Len()).CurrentOfEach(ids[lo:], runs[lo:]))
	}
	return nil
}
