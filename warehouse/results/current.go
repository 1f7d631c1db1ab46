package results

import (
	"context"
	"database/sql"
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

// readCurrent reads the current rows of a results table for conversations
// and classifiers (key names the table's classifier column). The id range
// lets DuckDB skip row groups of the sorted files; the semi-join keeps the
// page's conversations (the range also holds others, e.g. of other
// hierarchy nodes). scan reads one row of columns.
func readCurrent[T any](ctx context.Context, r *Reader, orgID, table, key, columns string, convs []Conversation, classifierIDs []string,
	scan func(*sql.Rows) (conv, run, classifier string, row T, err error)) (map[string][]T, error) {
	if len(convs) == 0 || len(classifierIDs) == 0 {
		return map[string][]T{}, nil
	}
	paths, lo, hi, err := r.resultPaths(ctx, orgID, table, convs)
	if err != nil || len(paths) == 0 {
		return map[string][]T{}, err
	}
	cur := newCurrent[T](convs)
	err = queryRows(ctx, r.Catalog.DB(), func(rows *sql.Rows) error {
		conv, run, classifier, row, err := scan(rows)
		if err == nil {
			cur.offer(conv, classifier, run, row)
		}
		return err
	}, `SELECT `+columns+` FROM read_parquet(`+r.Catalog.LakeFileList(paths)+`, hive_partitioning = false)
		WHERE conversation_id BETWEEN ? AND ? AND conversation_id IN (SELECT unnest(?::VARCHAR[]))
		AND `+key+` IN (SELECT unnest(?::VARCHAR[]))`, lo, hi, ids(convs), classifierIDs)
	if err != nil {
		return nil, err
	}
	return cur.byConversation(), nil
}
