package api

import (
	"maps"
	"slices"
	"strings"
	"sync"

	"github.com/earshot/earshot/warehouse/results"
)

// A result page's batch has its results chosen and written as JSON by its
// fetch, beside the catalog's check of the batch's lake rows; once the
// check is done, the page only writes each item's own fields around them
// (an Insights item's before its results, a /ModelResults item's ids and
// client call id before the rest, modelResultsItem.tail). No map of
// results is built and no result is laid out twice.

// writtenPages holds the buffers a page's results are written into (kept
// buffers, takePageBuffer) until the page is sent: giveBack returns them.
type writtenPages struct {
	mu   sync.Mutex
	bufs []*[]byte
	// inTurn is the buffer of results written in one part, range after
	// range (a batch's rows as their results are chosen): one buffer a
	// page, not one a range.
	inTurn *[]byte
}

func (w *writtenPages) giveBack() {
	for _, buf := range w.bufs {
		givePageBuffer(buf)
	}
}

// write writes the results of n rows with appendRow, in parts at once
// (inParts), each part into a buffer: the i-th of what it returns is row
// i's JSON. Written in one part, they go after those written in one part
// before (writes in one part are made one at a time).
func (w *writtenPages) write(n, parts int, appendRow func(dst []byte, row int) []byte) [][]byte {
	out := make([][]byte, n)
	if parts <= 1 {
		appendRows(out, 0, n, w.inTurnBuffer(), appendRow)
		return out
	}
	inParts(n, parts, func(_, lo, hi int) {
		buf := w.take()
		appendRows(out, lo, hi, buf, appendRow)
	})
	return out
}

// take is a kept buffer, emptied, given back with the page's.
func (w *writtenPages) take() *[]byte {
	buf := takePageBuffer()
	*buf = (*buf)[:0]
	w.mu.Lock()
	w.bufs = append(w.bufs, buf)
	w.mu.Unlock()
	return buf
}

// inTurnBuffer is the buffer of the results written in one part.
func (w *writtenPages) inTurnBuffer() *[]byte {
	if w.inTurn == nil {
		w.inTurn = w.take()
	}
	return w.inTurn
}

// appendRows appends rows lo:hi to buf with appendRow, each row's JSON to
// out. buf grows: the rows are sliced out of it when it is whole (a
// range's rows before it share the memory it had then).
func appendRows(out [][]byte, lo, hi int, buf *[]byte, appendRow func(dst []byte, row int) []byte) {
	b := *buf
	start := len(b)
	ends := make([]int, hi-lo)
	for i := lo; i < hi; i++ {
		b = appendRow(b, i)
		ends[i-lo] = len(b)
	}
	for i := lo; i < hi; i++ {
		end := ends[i-lo]
		out[i], start = b[start:end:end], end
	}
	*buf = b
}

// insightResults writes each row's current classifier results as a JSON
// array.
func (w *writtenPages) insightResults(byRow [][]results.ClassifierResult, classifiers map[string]*insightClassifier) [][]byte {
	inOrder := classifiersInOrder(classifiers)
	return w.write(len(byRow), pageParts(len(byRow)), func(dst []byte, row int) []byte {
		return appendInsightResults(dst, byRow[row], inOrder)
	})
}

// classifiersInOrder are the classifiers in id order, the order of a
// conversation's results (lake.Candidates.Current).
func classifiersInOrder(classifiers map[string]*insightClassifier) []*insightClassifier {
	return slices.SortedFunc(maps.Values(classifiers), func(a, b *insightClassifier) int { return strings.Compare(a.ClassifierID, b.ClassifierID) })
}

// appendInsightResults writes an Insights item's classifierResults. The
// results come in classifier id order, so their classifiers are found by
// walking inOrder along them, not by a map lookup each.
func appendInsightResults(dst []byte, res []results.ClassifierResult, inOrder []*insightClassifier) []byte {
	dst = append(dst, '[')
	k := 0
	for i, r := range res {
		if i > 0 {
			dst = append(dst, ',')
		}
		for k < len(inOrder) && inOrder[k].ClassifierID < r.ClassifierID {
			k++
		}
		var ic *insightClassifier // none for a result of a classifier not listed, as a map lookup would say
		if k < len(inOrder) && inOrder[k].ClassifierID == r.ClassifierID {
			ic = inOrder[k]
		}
		dst = insightResult{insightClassifier: ic, Result: r.Result, Reasoning: r.Reasoning}.appendJSON(dst)
	}
	return append(dst, ']')
}

// insightLine is an Insights item with its classifierResults written.
type insightLine struct {
	head    insightItem // its ClassifierResults are not read
	results []byte
}

func (l insightLine) appendJSON(dst []byte) []byte {
	return append(append(append(l.head.appendHead(dst), `,"classifierResults":`...), l.results...), '}')
}
