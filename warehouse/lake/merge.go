package lake

import "slices"

// Merge joins the rows of batches into one batch in conversation id order,
// as the writer wants them. Uploads processed side by side hand out
// interleaved ids, but each hands out its own in order: the batches'
// rows are merged by conversation id, each conversation's rows moved
// once, instead of sorting every row. A table whose rows in a batch are
// not in conversation order is joined as it comes, and the writer sorts
// it.
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
	var tables [][]T
	total, ordered := 0, true
	for i := range batches {
		rows := table(&batches[i])
		if len(rows) == 0 {
			continue
		}
		tables = append(tables, rows)
		total += len(rows)
		for j := 1; j < len(rows) && ordered; j++ {
			ordered = conversation(&rows[j-1]) <= conversation(&rows[j])
		}
	}
	if total == 0 {
		return nil
	}
	out := make([]T, 0, total)
	if !ordered {
		for _, rows := range tables {
			out = append(out, rows...)
		}
		return out
	}
	// Each step moves the run of the least conversation id at the head of
	// a table (the first table's on a tie).
	for len(tables) > 0 {
		least := 0
		for t := 1; t < len(tables); t++ {
			if conversation(&tables[t][0]) < conversation(&tables[least][0]) {
				least = t
			}
		}
		rows := tables[least]
		id, end := conversation(&rows[0]), 1
		for end < len(rows) && conversation(&rows[end]) == id {
			end++
		}
		out = append(out, rows[:end]...)
		if tables[least] = rows[end:]; len(tables[least]) == 0 {
			tables = slices.Delete(tables, least, least+1)
		}
	}
	return out
}
