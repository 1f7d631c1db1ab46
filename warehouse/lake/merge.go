package lake

import (
	"slices"
	"strings"
)

// Merge joins the rows of batches into one batch in conversation id order,
// as the writer wants them. Uploads processed side by side hand out
// interleaved ids, but each keeps a conversation's rows of a table
// together: those runs are moved once, in the order of their conversation
// ids, instead of sorting every row. A table whose rows of a conversation
// are not together (or in two batches) is joined as it comes, and the
// writer sorts it.
func Merge(batches []Batch) Batch {
	if len(batches) == 1 {
		return batches[0]
	}
	return Batch{
		Conversations:     mergeTable(batches, func(b *Batch) []Conversation { return b.Conversations }, func(r *Conversation) string { return r.ID }),
		Segments:          mergeTable(batches, func(b *Batch) []Segment { return b.Segments }, func(r *Segment) string { return r.ConversationID }),
		ClassifierResults: mergeTable(batches, func(b *Batch) []ClassifierResult { return b.ClassifierResults }, func(r *ClassifierResult) string { return r.ConversationID }),
		ModelResults:      mergeTable(batches, func(b *Batch) []ModelResult { return b.ModelResults }, func(r *ModelResult) string { return r.ConversationID }),
	}
}

// mergeTable is one table's rows of the batches in conversation order.
func mergeTable[T any](batches []Batch, table func(*Batch) []T, conversation func(*T) string) []T {
	total := 0
	for i := range batches {
		total += len(table(&batches[i]))
	}
	if total == 0 {
		return nil
	}
	runs := map[string][]T{}
	together := true
	for i := range batches {
		if together {
			together = addRuns(table(&batches[i]), conversation, runs)
		}
	}
	out := make([]T, 0, total)
	if !together {
		for i := range batches {
			out = append(out, table(&batches[i])...)
		}
		return out
	}
	ids := make([]string, 0, len(runs))
	for id := range runs {
		ids = append(ids, id)
	}
	slices.SortFunc(ids, strings.Compare)
	for _, id := range ids {
		out = append(out, runs[id]...)
	}
	return out
}

// addRuns adds rows' runs of one conversation each to runs; false when a
// conversation's rows are not all in one run.
func addRuns[T any](rows []T, conversation func(*T) string, runs map[string][]T) bool {
	start := 0
	for i := 1; i <= len(rows); i++ {
		if i < len(rows) && conversation(&rows[i]) == conversation(&rows[start]) {
			continue
		}
		id := conversation(&rows[start])
		if _, seen := runs[id]; seen {
			return false
		}
		runs[id] = rows[start:i:i]
		start = i
	}
	return true
}
