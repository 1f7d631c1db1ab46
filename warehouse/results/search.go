package results

import (
	"context"
	"strings"
	"time"

	"github.com/earshot/earshot/warehouse/catalog"
)

// Search narrows a list of conversations by what only the lake knows.
type Search struct {
	// ClassifierID with Result: conversations whose current result of
	// the classifier is Result ("true", "false", a label).
	ClassifierID, Result string
	// Text: conversations whose current transcript has a turn
	// containing it, in any case.
	Text string
	// AgentCode: conversations of the agent of this code, in any case.
	AgentCode string
	// Newest lists from the newest conversation back, before BeforeID
	// when it is set (q.AfterID is then not read).
	Newest   bool
	BeforeID string
}

// Search lists the ids of the processed conversations q may see that
// arrived in its window and match s (their current rows, by the rule of
// Daily), at most q.Limit: oldest first after q.AfterID, or newest first
// before s.BeforeID. Ids grow with arrival, so it reads windows from one
// end of q's, each twice as long as the one before, until the page is
// full: a page near either end reads its days alone, however long the
// range; a caller going on from a cursor starts the range at its arrival.
func (r *Reader) Search(ctx context.Context, q PageQuery, s Search) ([]string, error) {
	var ids []string
	limit := q.Limit
	for span, w := 24*time.Hour, q; !w.To.Before(w.From) && len(ids) < limit; span *= 2 {
		page := w
		if s.Newest {
			page.From = maxTime(w.To.Add(-span+time.Nanosecond), w.From)
			w.To = page.From.Add(-time.Nanosecond)
		} else {
			page.To = minTime(w.From.Add(span-time.Nanosecond), w.To)
			w.From = page.To.Add(time.Nanosecond)
		}
		page.Limit = limit - len(ids)
		found, err := r.searchWindow(ctx, page, s)
		if err != nil {
			return nil, err
		}
		ids = append(ids, found...)
	}
	return ids, nil
}

func maxTime(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}

func minTime(a, b time.Time) time.Time {
	if a.Before(b) {
		return a
	}
	return b
}

// searchWindow is one query of Search, over q's window.
func (r *Reader) searchWindow(ctx context.Context, q PageQuery, s Search) ([]string, error) {
	conv, args, ok, err := r.figureConversations(ctx, q, `agent_code`)
	if err != nil || !ok {
		return nil, err
	}
	with := `WITH conv AS (` + conv + `)`
	where, order, cursor := ` WHERE c.conversation_id > ?`, ``, []any{q.AfterID}
	if s.Newest {
		where, order, cursor = ` WHERE (? = '' OR c.conversation_id < ?)`, ` DESC`, []any{s.BeforeID, s.BeforeID}
	}
	var tail []any
	if s.AgentCode != "" {
		where += ` AND lower(c.agent_code) = lower(?)`
		tail = append(tail, s.AgentCode)
	}
	if s.ClassifierID != "" {
		res, ok, err := r.figureResults(ctx, q, `r.conversation_id, r.result`)
		if err != nil || !ok {
			return nil, err
		}
		with += `, res AS (` + res + `)`
		args = append(args, []string{s.ClassifierID})
		where += ` AND c.conversation_id IN (SELECT conversation_id FROM res WHERE result = ?)`
		tail = append(tail, s.Result)
	}
	if text := strings.TrimSpace(s.Text); text != "" {
		files, err := r.Manifest.ManifestFiles(ctx, catalog.ManifestQuery{OrgID: q.OrgID, Table: "transcript_segments", From: q.From, To: q.To})
		if err != nil || len(files) == 0 {
			return nil, err
		}
		list, err := r.Lake.Files(ctx, catalog.Paths(files))
		if err != nil {
			return nil, err
		}
		where += ` AND c.conversation_id IN (SELECT t.conversation_id FROM read_parquet(` + list + `, hive_partitioning = false) t
			JOIN conv k ON k.conversation_id = t.conversation_id AND k.run_id = t.run_id
			WHERE contains(lower(t.text), lower(?)))`
		tail = append(tail, text)
	}
	args = append(append(append(args, cursor...), tail...), q.Limit)
	rows, err := r.Lake.QueryContext(ctx, with+` SELECT c.conversation_id FROM conv c`+where+` ORDER BY c.conversation_id`+order+` LIMIT ?`, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var ids []string
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			return nil, err
		}
		ids = append(ids, id)
	}
	return ids, rows.Err()
}

// Excerpts are, for each of the conversations of ids in q's window, the
// first turn of its current transcript that contains text (in any case).
func (r *Reader) Excerpts(ctx context.Context, q PageQuery, ids []string, text string) (map[string]string, error) {
	out := map[string]string{}
	if len(ids) == 0 || strings.TrimSpace(text) == "" {
		return out, nil
	}
	conv, args, ok, err := r.figureConversations(ctx, q, `agent_code`)
	if err != nil || !ok {
		return out, err
	}
	files, err := r.Manifest.ManifestFiles(ctx, catalog.ManifestQuery{OrgID: q.OrgID, Table: "transcript_segments", From: q.From, To: q.To})
	if err != nil || len(files) == 0 {
		return out, err
	}
	list, err := r.Lake.Files(ctx, catalog.Paths(files))
	if err != nil {
		return out, err
	}
	rows, err := r.Lake.QueryContext(ctx, `WITH conv AS (`+conv+`)
		SELECT t.conversation_id, arg_min(t.text, t.segment_index) FROM read_parquet(`+list+`, hive_partitioning = false) t
		JOIN conv k ON k.conversation_id = t.conversation_id AND k.run_id = t.run_id
		WHERE list_contains(?, t.conversation_id) AND contains(lower(t.text), lower(?))
		GROUP BY t.conversation_id`, append(args, ids, strings.TrimSpace(text))...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		var id, turn string
		if err := rows.Scan(&id, &turn); err != nil {
			return nil, err
		}
		out[id] = turn
	}
	return out, rows.Err()
}
