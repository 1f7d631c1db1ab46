// Package results answers the query API (/ModelResults,
// /Conversations/Insights) from the lake. Every read prunes first: the
// manifest names the files of the organization, the date range and the
// cursor's id range, and DuckDB reads only those, with bound parameters.
// The catalog then says which of the page's lake rows are current (a
// conversation's run) and its mutable state (status, patched metadata).
package results

import (
	"context"
	"database/sql"
	"github.com/earshot/earshot/internal/timing"
	"maps"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/earshot/earshot/warehouse/catalog"
)

// Reader reads pages of conversations and their results, and transcripts:
// the catalog prunes and says what is current, the lake engine reads.
type Reader struct {
	Manifest      Manifest
	Conversations Conversations
	Lake          Lake
	// Figures keeps dashboards' figures of the lake's days (nil: only in
	// this process's memory).
	Figures FigureStore

	days dayCache // dashboards' figures by day (dayfigures.go)
}

// Manifest lists the lake files a query reads (catalog.ManifestStore).
type Manifest interface {
	ManifestFiles(ctx context.Context, q catalog.ManifestQuery) ([]catalog.LakeFile, error)
	ManifestCount(ctx context.Context, q catalog.ManifestQuery) (int, error)
	LakeFiles(ctx context.Context, orgID, table string, from, to time.Time) ([]catalog.LakeFile, error)
}

// Conversations is what a page needs of the catalog about the
// conversations it shows: their states (status, dates after a PATCH,
// review counts) and current runs (catalog.InteractionStore).
type Conversations interface {
	ConversationStates(ctx context.Context, orgID string, ids []string, sparse bool) (map[string]catalog.ConversationState, error)
	MovedConversations(ctx context.Context, orgID, afterID string, from, to time.Time) ([]catalog.MovedConversation, error)
	CurrentRuns(ctx context.Context, orgID string, ids []string) (map[string]string, error)
}

// Lake runs DuckDB statements over the lake's files (lakedb.DB).
type Lake interface {
	// Files is the SQL list literal of lake files for read_parquet
	// (fetching those a local cache lacks).
	Files(ctx context.Context, paths []string) (string, error)
	// QueryArrow hands the query's result to fn in Arrow record batches.
	QueryArrow(ctx context.Context, fn func(arrow.RecordBatch) error, query string, args ...any) error
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

// Window is a closed range of time on arrival dates, or on interaction
// dates (a conversation's interaction date, else its arrival).
type Window struct {
	From, To      time.Time
	ByInteraction bool
}

// Conversation is a processed conversation of a page.
type Conversation struct {
	ID              string
	RunID           string // the run whose lake rows are current
	Status          string // ReadyToSample | Sampled
	ClientCallID    *string
	ArrivedOn       time.Time
	InteractionDate *time.Time
	HierarchyNodeID *string
	MediaType       string
}

// ConversationOf is a processed conversation's record as a page's
// conversation (its LakeRunID is set).
func ConversationOf(it catalog.Interaction) Conversation {
	return Conversation{ID: it.ID, RunID: *it.LakeRunID, Status: it.Status, ClientCallID: it.ClientCallID, ArrivedOn: it.ArrivedOn,
		InteractionDate: it.InteractionDate, HierarchyNodeID: it.HierarchyNodeID, MediaType: it.MediaType}
}

// PageQuery selects processed conversations in id order.
type PageQuery struct {
	OrgID string
	Window
	NodeIDs []string // hierarchy nodes (expanded by the caller); nil: all
	AfterID string   // keyset cursor
	Limit   int
	// Scope is what the caller may read (nil: the whole organization);
	// NodeIDs must already be narrowed to its nodes (Scope.Narrow).
	Scope catalog.Scope
}

// sparse reports whether a page's conversations may be a small share of
// the lake rows in their id range (a hierarchy filter or an interaction
// window leaves others between them). Reads of their results then join on
// their ids; a dense page reads its id range alone and drops the few other
// rows in Go, which costs DuckDB about half as much as the join.
func (q PageQuery) sparse() bool { return q.NodeIDs != nil || q.ByInteraction }

// scopeSQL is the condition of q's scope on lake conversation rows: the
// node filter alone cannot say which media a node's conversations may be.
func (q PageQuery) scopeSQL() (string, []any) {
	if q.Scope == nil {
		return "", nil
	}
	var conds []string
	var args []any
	for _, media := range slices.Sorted(maps.Keys(q.Scope)) {
		if nodes := q.Scope[media]; len(nodes) > 0 {
			conds = append(conds, `(media_type = ? AND list_contains(?, hierarchy_node_id))`)
			args = append(args, media, nodes)
		}
	}
	if len(conds) == 0 {
		return ` AND false`, nil
	}
	return ` AND (` + strings.Join(conds, ` OR `) + `)`, args
}

// processed are the statuses of conversations whose rows are in the lake.
var processed = map[string]bool{catalog.StatusReadyToSample: true, catalog.StatusSampled: true}

// Keep narrows a batch of a page (e.g. to conversations with a matching
// result); it returns the batch itself to keep all. The batch is the rows
// its Fetch was given that the catalog's check kept, in their order
// (RowsOf finds them there), and Page appends what Keep returns to the
// page in that order.
type Keep func(ctx context.Context, batch []Conversation) ([]Conversation, error)

// Fetch reads what a page shows of a batch's conversations (their
// results). Page calls it with the batch's lake rows, beside the catalog
// check of those rows (the two are independent reads), and applies the
// Keep it returns to the rows the check kept.
type Fetch func(ctx context.Context, rows []Conversation) (Keep, error)

// Page returns up to q.Limit conversations after q.AfterID in id order,
// and whether more follow. It reads the lake in batches, checks each
// batch against the catalog while fetch reads its results, and reads on
// until the page is full. fetch may be nil.
func (r *Reader) Page(ctx context.Context, q PageQuery, fetch Fetch) ([]Conversation, bool, error) {
	stop := timing.Start(ctx, "files")
	files, err := r.conversationFiles(ctx, q)
	if err != nil {
		stop()
		return nil, false, err
	}
	mv, err := r.movedConversations(ctx, q)
	stop()
	if err != nil || len(files) == 0 && len(mv.entering) == 0 {
		return nil, false, err
	}
	entering := mv.entering
	want := q.Limit + 1 // one more says whether another page follows
	slack := batchSlack(files, want)
	cursor := q.AfterID
	var out []Conversation
	for len(out) < want {
		batchLimit := max(want-len(out), 64) + slack
		stop := timing.Start(ctx, "lake")
		rows, next, err := r.lakeConversations(ctx, q, files, cursor, batchLimit)
		stop()
		if err != nil {
			return nil, false, err
		}
		rows, entering = mergeEntering(rows, entering, next)
		verified, err := r.checkAndFetch(ctx, q, rows, fetch)
		if err != nil {
			return nil, false, err
		}
		out = append(out, verified...)
		if next == "" {
			break
		}
		cursor = next
	}
	if len(out) > q.Limit {
		return out[:q.Limit], true, nil
	}
	return out, false, nil
}

// checkAndFetch checks a batch's rows against the catalog while fetch
// reads their results, then applies fetch's Keep to the checked rows. The
// check starts once DuckDB has executed the fetch's lake query, beside the
// hand-over of its result (executed.go).
func (r *Reader) checkAndFetch(ctx context.Context, q PageQuery, rows []Conversation, fetch Fetch) ([]Conversation, error) {
	if len(rows) == 0 {
		return nil, nil
	}
	var keep Keep
	var fetchErr error
	var wg sync.WaitGroup
	if fetch != nil {
		executed := make(chan struct{})
		signal := sync.OnceFunc(func() { close(executed) })
		wg.Go(func() {
			defer signal() // a fetch that ran no lake query, or failed
			defer timing.Start(ctx, "fetch")()
			keep, fetchErr = fetch(withExecuted(ctx, signal), rows)
		})
		<-executed
	}
	stop := timing.Start(ctx, "verify")
	verified, err := r.verify(ctx, q, rows)
	stop()
	wg.Wait()
	if err != nil {
		return nil, err
	}
	if fetchErr != nil {
		return nil, fetchErr
	}
	if keep == nil || len(verified) == 0 {
		return verified, nil
	}
	defer timing.Start(ctx, "keep")()
	return keep(ctx, verified)
}

// batchSlack is how many rows a batch reads beyond those the page still
// needs. One: a full batch leaves its last conversation to the next (it
// may have rows beyond the limit). Where files overlap (a conversation
// processed again has a row of each run until compaction, and the catalog
// check keeps one), a little more: another round of three queries for the
// rows the check drops would cost more than the extra rows. Where none
// does, the check drops rows only of conversations changed since their
// files were written (being processed again, deleted), which another round
// reads past, and rows read for nothing would cost the results query their
// results, and at times a row group more.
func batchSlack(files []catalog.LakeFile, want int) int {
	if len(overlapping(files)) < len(files) {
		return 1 + want/32
	}
	return 1
}

// conversationFiles prunes the conversations files: by partition date and
// arrival range for arrival windows (a window ending at midnight holds
// none of the next day's file), by the manifest's interaction range for
// interaction windows, and by the cursor; in id order.
func (r *Reader) conversationFiles(ctx context.Context, q PageQuery) ([]catalog.LakeFile, error) {
	mq := catalog.ManifestQuery{OrgID: q.OrgID, Table: "conversations", AfterID: q.AfterID}
	if q.ByInteraction {
		mq.InteractionFrom, mq.InteractionTo = &q.From, &q.To
	} else {
		mq.From, mq.To = q.From, q.To
		mq.ArrivalFrom, mq.ArrivalTo = &q.From, &q.To
	}
	files, err := r.Manifest.ManifestFiles(ctx, mq)
	slices.SortFunc(files, func(a, b catalog.LakeFile) int { return strings.Compare(a.MinID, b.MinID) })
	return files, err
}

// batchFiles are the files a batch after cursor reads: the first ones in
// id order that hold at least limit rows, and every file overlapping
// them. bound is the largest id they can hold ("" when they are all the
// files left): every row after cursor up to bound is in them, so a batch
// may stop there and the next go on from bound. A page then reads one or
// two day files, not every file of its window.
func batchFiles(files []catalog.LakeFile, cursor string, limit int) (paths []string, bound string) {
	var rows int64
	for _, f := range files { // sorted by MinID
		if cursor != "" && f.MaxID <= cursor {
			continue
		}
		if rows >= int64(limit) && f.MinID > bound {
			return paths, bound
		}
		paths = append(paths, f.Path)
		rows += f.Rows
		bound = max(bound, f.MaxID)
	}
	return paths, ""
}

// lakeConversations reads up to limit conversation rows after cursor from
// files. A conversation written by two runs has a row of each (until
// compaction keeps the current one): rows come newest run first, and a
// full batch drops its last conversation, which may have rows beyond the
// limit, so that the next batch reads it whole. next is the cursor the
// next batch goes on from, "" when no rows are left.
func (r *Reader) lakeConversations(ctx context.Context, q PageQuery, files []catalog.LakeFile, cursor string, limit int) (rows []Conversation, next string, err error) {
	paths, bound := batchFiles(files, cursor, limit)
	if len(paths) == 0 {
		return nil, "", nil
	}
	date := "arrived_on"
	if q.ByInteraction {
		date = "coalesce(interaction_date, arrived_on)"
	}
	list, err := r.Lake.Files(ctx, paths)
	if err != nil {
		return nil, "", err
	}
	query := `SELECT conversation_id, run_id, client_call_id, arrived_on, interaction_date, hierarchy_node_id, media_type
		FROM read_parquet(` + list + `, hive_partitioning = false)
		WHERE conversation_id > ? AND ` + date + ` BETWEEN ? AND ?`
	args := []any{cursor, q.From.UTC(), q.To.UTC()}
	if bound != "" {
		query += ` AND conversation_id <= ?`
		args = append(args, bound)
	}
	if q.NodeIDs != nil {
		query += ` AND list_contains(?, hierarchy_node_id)`
		args = append(args, q.NodeIDs)
	}
	scope, scopeArgs := q.scopeSQL()
	query += scope
	args = append(args, scopeArgs...)
	query += ` ORDER BY conversation_id, run_id DESC LIMIT ?`
	args = append(args, limit)
	in := newInterner() // runs and hierarchy nodes repeat
	rows = make([]Conversation, 0, limit)
	err = r.Lake.QueryArrow(ctx, func(rec arrow.RecordBatch) error {
		cols := rec.Columns()
		ids, runs := cols[0].(stringColumn), cols[1].(stringColumn)
		for i := range int(rec.NumRows()) {
			rows = append(rows, Conversation{ID: strings.Clone(ids.Value(i)), RunID: in.of(runs.Value(i)),
				ClientCallID: optionalString(cols[2], i), ArrivedOn: timestampAt(cols[3], i),
				InteractionDate: optionalTimestamp(cols[4], i), HierarchyNodeID: optionalInterned(cols[5], i, in),
				MediaType: in.of(cols[6].(stringColumn).Value(i))})
		}
		return nil
	}, query, args...)
	if err != nil {
		return nil, "", err
	}
	if len(rows) < limit {
		return rows, bound, nil // all rows up to bound were read
	}
	last := rows[len(rows)-1].ID
	for len(rows) > 0 && rows[len(rows)-1].ID == last {
		rows = rows[:len(rows)-1]
	}
	if len(rows) == 0 {
		return nil, "", errTooManyRuns(last)
	}
	return rows, rows[len(rows)-1].ID, nil
}

// verify keeps the rows of each conversation's current run (the lake's
// rule, lake/current.go) whose conversation is processed, with its state
// from the catalog: status, and the client call id and interaction date as
// last patched (a patched interaction date outside the window leaves the
// page).
func (r *Reader) verify(ctx context.Context, q PageQuery, rows []Conversation) ([]Conversation, error) {
	ids := make([]string, 0, len(rows))
	for i, c := range rows {
		if i == 0 || c.ID != rows[i-1].ID {
			ids = append(ids, c.ID)
		}
	}
	states, err := r.Conversations.ConversationStates(ctx, q.OrgID, ids, q.sparse())
	if err != nil {
		return nil, err
	}
	out := make([]Conversation, 0, len(rows)) // not in place: a fetch reads rows meanwhile
	for _, c := range rows {
		s, ok := states[c.ID]
		if !ok || !processed[s.Status] || !s.LakeRunID.Valid || s.LakeRunID.String != c.RunID || !q.Scope.Allows(c.MediaType, c.HierarchyNodeID) {
			continue
		}
		c.Status, c.ClientCallID, c.InteractionDate = s.Status,
			patched(c.ClientCallID, s.ClientCallID.String, s.ClientCallID.Valid, func(a, b string) bool { return a == b }),
			patched(c.InteractionDate, s.InteractionDate.Time, s.InteractionDate.Valid, time.Time.Equal)
		if q.ByInteraction {
			when := c.ArrivedOn
			if c.InteractionDate != nil {
				when = *c.InteractionDate
			}
			if when.Before(q.From) || when.After(q.To) {
				continue
			}
		}
		out = append(out, c)
	}
	return out, nil
}

// patched is the catalog's value of a field of a lake row (valid: not
// NULL): the row's own where the two are the same, else a copy of the
// catalog's.
func patched[T any](lake *T, catalog T, valid bool, same func(a, b T) bool) *T {
	switch {
	case !valid:
		return nil
	case lake != nil && same(*lake, catalog):
		return lake
	}
	v := catalog // &catalog would move every call's catalog to the heap
	return &v
}

type errTooManyRuns string

func (e errTooManyRuns) Error() string {
	return "conversation " + string(e) + " has more lake rows than a page reads; run the compact job"
}
