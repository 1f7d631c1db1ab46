package results

import (
	"context"
	"strings"

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
}

// Search gives the ids of the processed conversations q may see that
// arrived in its window and match s, in id order after q.AfterID, at most
// q.Limit: the current rows by the rule of Daily.
func (r *Reader) Search(ctx context.Context, q PageQuery, s Search) ([]string, error) {
	conv, args, ok, err := r.figureConversations(ctx, q, `agent_code`)
	if err != nil || !ok {
		return nil, err
	}
	with := `WITH conv AS (` + conv + `)`
	where := ` WHERE c.conversation_id > ?`
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
	args = append(append(append(args, q.AfterID), tail...), q.Limit)
	rows, err := r.Lake.QueryContext(ctx, with+` SELECT c.conversation_id FROM conv c`+where+` ORDER BY c.conversation_id LIMIT ?`, args...)
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
