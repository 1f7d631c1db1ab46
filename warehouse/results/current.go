package results

import (
	"context"
	"time"

	"github.com/earshot/earshot/warehouse/catalog"
)

// current keeps, per conversation and classifier, the row of the newest
// run not older than the conversation's own run: a reclassification
// replaces the ingest's result, a later re-ingestion replaces both (the
// rule compaction applies too).
type current[T any] struct {
	convRun map[string]string
	best    map[[2]string]T
	bestRun map[[2]string]string
}

func newCurrent[T any](convs []Conversation) *current[T] {
	c := &current[T]{convRun: make(map[string]string, len(convs)), best: map[[2]string]T{}, bestRun: map[[2]string]string{}}
	for _, conv := range convs {
		c.convRun[conv.ID] = conv.RunID
	}
	return c
}

func (c *current[T]) offer(conv, classifier, run string, row T) {
	convRun, ok := c.convRun[conv]
	if !ok || run < convRun {
		return
	}
	k := [2]string{conv, classifier}
	if r, ok := c.bestRun[k]; ok && r >= run {
		return
	}
	c.bestRun[k], c.best[k] = run, row
}

// byConversation is the kept rows of each conversation.
func (c *current[T]) byConversation() map[string][]T {
	out := map[string][]T{}
	for k, row := range c.best {
		out[k[0]] = append(out[k[0]], row)
	}
	return out
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
	files, err := r.Catalog.ManifestFiles(ctx, catalog.ManifestQuery{OrgID: orgID, Table: table, Dates: days, MaxID: hi})
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

// ids are the conversations' ids.
func ids(convs []Conversation) []string {
	out := make([]string, len(convs))
	for i, c := range convs {
		out[i] = c.ID
	}
	return out
}
