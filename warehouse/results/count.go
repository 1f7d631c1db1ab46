package results

import (
	"context"
	"slices"
	"time"

	"github.com/earshot/earshot/warehouse/catalog"
)

// Count is how many processed conversations a page query's walk would
// list, from its first page (X-Total-Records). With classifierIDs, only
// those with a result of one of them count (in the lake's rows; a
// conversation a PATCH moved into an interaction window counts whatever
// its results).
func (r *Reader) Count(ctx context.Context, q PageQuery, classifierIDs []string) (int64, error) {
	q.AfterID = ""
	mv, err := r.movedConversations(ctx, q)
	if err != nil {
		return 0, err
	}
	lake, err := r.lakeCount(ctx, q, classifierIDs)
	// Conversations a PATCH moved are counted where the catalog puts them.
	return max(lake+int64(len(mv.entering)-mv.leaving), 0), err
}

// lakeCount counts the conversations of the lake's rows in the window,
// one per conversation however many runs wrote it.
//
// A file wholly inside the window, overlapping no other file's ids, is
// counted from its manifest entry: its per-node counts, and, under a
// classifier filter, only when one of the classifiers is complete in it.
// The rest (a window's partial edge days, re-run files not yet
// compacted) are counted by one scan. A month of whole days at 10 million
// conversations is then a sum over a few dozen manifest entries instead of
// a distinct count over millions of rows.
func (r *Reader) lakeCount(ctx context.Context, q PageQuery, classifierIDs []string) (int64, error) {
	files, err := r.conversationFiles(ctx, q)
	if err != nil || len(files) == 0 {
		return 0, err
	}
	var total int64
	var scan []catalog.LakeFile
	for _, cluster := range overlapping(files) {
		if n, ok := manifestCount(cluster, q, classifierIDs); ok {
			total += n
			continue
		}
		scan = append(scan, cluster...)
	}
	if len(scan) == 0 {
		return total, nil
	}
	n, err := r.scanCount(ctx, q, scan, classifierIDs)
	return total + n, err
}

// overlapping groups files (sorted by MinID) into runs whose id ranges
// overlap: a conversation is in at most one such run.
func overlapping(files []catalog.LakeFile) [][]catalog.LakeFile {
	var out [][]catalog.LakeFile
	var last string
	for i, f := range files {
		if i > 0 && f.MinID <= last {
			out[len(out)-1] = append(out[len(out)-1], f)
			last = max(last, f.MaxID)
			continue
		}
		out = append(out, []catalog.LakeFile{f})
		last = f.MaxID
	}
	return out
}

// manifestCount counts a cluster of files from the manifest when it can:
// one file (no conversation in it twice), wholly inside the window, with
// node counts, and under a classifier filter one of the classifiers
// complete in it.
func manifestCount(cluster []catalog.LakeFile, q PageQuery, classifierIDs []string) (int64, bool) {
	if len(cluster) != 1 || cluster[0].NodeCounts == nil || !inside(cluster[0], q.Window) || q.Scope != nil {
		return 0, false
	}
	f := cluster[0]
	if classifierIDs != nil && !slices.ContainsFunc(classifierIDs, func(id string) bool { return slices.Contains(f.CompleteClassifiers, id) }) {
		return 0, false
	}
	if q.NodeIDs == nil {
		return f.Rows, true
	}
	var n int64
	for _, node := range q.NodeIDs {
		n += f.NodeCounts[node]
	}
	return n, true
}

// inside tells whether every conversation of a file is in the window: its
// interaction range, its arrival range, or without one its whole arrival
// day. The lake keeps times to the microsecond, and DuckDB compares them
// with the window's bounds so cut.
func inside(f catalog.LakeFile, w Window) bool {
	from, to := w.From.Truncate(time.Microsecond), w.To.Truncate(time.Microsecond)
	switch {
	case w.ByInteraction:
		return f.MinInteraction != nil && f.MaxInteraction != nil && !f.MinInteraction.Before(w.From) && !f.MaxInteraction.After(w.To)
	case f.MinArrival != nil && f.MaxArrival != nil:
		return !f.MinArrival.Before(from) && !f.MaxArrival.After(to)
	}
	return !f.Date.Before(w.From) && !lastOfDay(f.Date).After(w.To)
}

// scanCount counts the conversations of files by reading them.
func (r *Reader) scanCount(ctx context.Context, q PageQuery, files []catalog.LakeFile, classifierIDs []string) (int64, error) {
	list, err := r.Lake.Files(ctx, catalog.Paths(files))
	if err != nil {
		return 0, err
	}
	// An interaction date may differ from run to run (a PATCH, then
	// processing again): its window applies to the current rows.
	arrival, where := arrivalWindow, `true`
	if q.ByInteraction {
		arrival, where = "", `coalesce(interaction_date, arrived_on) BETWEEN ? AND ?`
	}
	args := []any{q.From.UTC(), q.To.UTC()}
	if q.NodeIDs != nil {
		where += ` AND list_contains(?, hierarchy_node_id)`
		args = append(args, q.NodeIDs)
	}
	scope, scopeArgs := q.scopeSQL()
	where += scope
	args = append(args, scopeArgs...)
	if classifierIDs != nil {
		var days []time.Time
		for _, f := range files {
			days = append(days, f.Date)
		}
		resultFiles, err := r.Manifest.ManifestFiles(ctx, catalog.ManifestQuery{OrgID: q.OrgID, Table: "classifier_results", Dates: days})
		if err != nil || len(resultFiles) == 0 {
			return 0, err
		}
		resultList, err := r.Lake.Files(ctx, catalog.Paths(resultFiles))
		if err != nil {
			return 0, err
		}
		where += ` AND conversation_id IN (SELECT conversation_id FROM read_parquet(` + resultList +
			`, hive_partitioning = false) WHERE classifier_id IN (SELECT unnest(?::VARCHAR[])))`
		args = append(args, classifierIDs)
	}
	var n int64
	err = r.Lake.QueryRowContext(ctx, `SELECT count(*) FROM (`+currentConversationsSQL(list, "1 AS one", arrival, where)+`)`, args...).Scan(&n)
	return n, err
}
