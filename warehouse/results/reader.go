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
	"time"

	"github.com/earshot/earshot/warehouse/catalog"
)

// Reader reads pages of conversations and their results.
type Reader struct {
	Catalog *catalog.Catalog
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
}

// PageQuery selects processed conversations in id order.
type PageQuery struct {
	OrgID string
	Window
	NodeIDs []string // hierarchy nodes (expanded by the caller); nil: all
	AfterID string   // keyset cursor
	Limit   int
}

// processed are the statuses of conversations whose rows are in the lake.
var processed = map[string]bool{catalog.StatusReadyToSample: true, catalog.StatusSampled: true}

// Keep narrows a batch of a page (e.g. to conversations with a matching
// result); it returns the batch itself to keep all.
type Keep func(ctx context.Context, batch []Conversation) ([]Conversation, error)

// Page returns up to q.Limit conversations after q.AfterID in id order,
// and whether more follow. It reads the lake in batches, checks each
// batch against the catalog and keep, and reads on until the page is full.
func (r *Reader) Page(ctx context.Context, q PageQuery, keep Keep) ([]Conversation, bool, error) {
	files, err := r.conversationFiles(ctx, q)
	if err != nil || len(files) == 0 {
		return nil, false, err
	}
	want := q.Limit + 1 // one more says whether another page follows
	cursor := q.AfterID
	var out []Conversation
	for len(out) < want {
		batchLimit := max(want-len(out), 64)
		rows, full, err := r.lakeConversations(ctx, q, files, cursor, batchLimit)
		if err != nil {
			return nil, false, err
		}
		if len(rows) == 0 {
			break
		}
		cursor = rows[len(rows)-1].ID
		verified, err := r.verify(ctx, q, rows)
		if err != nil {
			return nil, false, err
		}
		if keep != nil && len(verified) > 0 {
			if verified, err = keep(ctx, verified); err != nil {
				return nil, false, err
			}
		}
		out = append(out, verified...)
		if !full {
			break
		}
	}
	if len(out) > q.Limit {
		return out[:q.Limit], true, nil
	}
	return out, false, nil
}

// conversationFiles prunes the conversations files: by partition date for
// arrival windows, by the manifest's interaction range for interaction
// windows, and by the cursor.
func (r *Reader) conversationFiles(ctx context.Context, q PageQuery) ([]catalog.LakeFile, error) {
	mq := catalog.ManifestQuery{OrgID: q.OrgID, Table: "conversations", AfterID: q.AfterID}
	if q.ByInteraction {
		mq.InteractionFrom, mq.InteractionTo = &q.From, &q.To
	} else {
		mq.From, mq.To = q.From, q.To
	}
	return r.Catalog.ManifestFiles(ctx, mq)
}

// lakeConversations reads up to limit conversation rows after cursor from
// files. A conversation written by two runs has a row of each (until
// compaction keeps the current one): rows come newest run first, and a
// full batch drops its last conversation, which may have rows beyond the
// limit, so that the next batch reads it whole. full says the limit was
// reached.
func (r *Reader) lakeConversations(ctx context.Context, q PageQuery, files []catalog.LakeFile, cursor string, limit int) ([]Conversation, bool, error) {
	var paths []string
	for _, f := range files {
		if cursor == "" || f.MaxID > cursor {
			paths = append(paths, f.Path)
		}
	}
	if len(paths) == 0 {
		return nil, false, nil
	}
	date := "arrived_on"
	if q.ByInteraction {
		date = "coalesce(interaction_date, arrived_on)"
	}
	query := `SELECT conversation_id, run_id, client_call_id, arrived_on, interaction_date, hierarchy_node_id
		FROM read_parquet(` + r.Catalog.LakeFileList(paths) + `, hive_partitioning = false)
		WHERE conversation_id > ? AND ` + date + ` BETWEEN ? AND ?`
	args := []any{cursor, q.From.UTC(), q.To.UTC()}
	if q.NodeIDs != nil {
		query += ` AND list_contains(?, hierarchy_node_id)`
		args = append(args, q.NodeIDs)
	}
	query += ` ORDER BY conversation_id, run_id DESC LIMIT ?`
	args = append(args, limit)
	rows, err := r.Catalog.DB().QueryContext(ctx, query, args...)
	if err != nil {
		return nil, false, err
	}
	defer rows.Close()
	var out []Conversation
	for rows.Next() {
		var c Conversation
		if err := rows.Scan(&c.ID, &c.RunID, &c.ClientCallID, &c.ArrivedOn, &c.InteractionDate, &c.HierarchyNodeID); err != nil {
			return nil, false, err
		}
		c.ArrivedOn = c.ArrivedOn.UTC()
		out = append(out, c)
	}
	if err := rows.Err(); err != nil {
		return nil, false, err
	}
	full := len(out) == limit
	if full {
		last := out[len(out)-1].ID
		for len(out) > 0 && out[len(out)-1].ID == last {
			out = out[:len(out)-1]
		}
		if len(out) == 0 {
			return nil, false, errTooManyRuns(last)
		}
	}
	return out, full, nil
}

// verify keeps the rows of each conversation's current run whose
// conversation is processed, with its state from the catalog: status,
// and the client call id and interaction date as last patched (a patched
// interaction date outside the window leaves the page).
func (r *Reader) verify(ctx context.Context, q PageQuery, rows []Conversation) ([]Conversation, error) {
	ids := make([]string, 0, len(rows))
	for i, c := range rows {
		if i == 0 || c.ID != rows[i-1].ID {
			ids = append(ids, c.ID)
		}
	}
	states, err := r.Catalog.ConversationStates(ctx, q.OrgID, ids)
	if err != nil {
		return nil, err
	}
	out := rows[:0]
	for _, c := range rows {
		s, ok := states[c.ID]
		if !ok || !processed[s.Status] || s.LakeRunID == nil || *s.LakeRunID != c.RunID {
			continue
		}
		c.Status, c.ClientCallID, c.InteractionDate = s.Status, s.ClientCallID, s.InteractionDate
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

type errTooManyRuns string

func (e errTooManyRuns) Error() string {
	return "conversation " + string(e) + " has more lake rows than a page reads; run the compact job"
}

// queryRows runs a query and scans each row with scan.
func queryRows(ctx context.Context, db *sql.DB, scan func(*sql.Rows) error, query string, args ...any) error {
	rows, err := db.QueryContext(ctx, query, args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		if err := scan(rows); err != nil {
			return err
		}
	}
	return rows.Err()
}
