package catalog

import (
	"context"
	"database/sql"
)

// ConversationState is what the catalog alone knows of a conversation
// whose rows are in the lake: its status (which sampling moves) and the run
// whose lake rows are current.
//
// Its values are held, not pointed to: a page reads a thousand states, and
// keeps the lake row's client call id and interaction date where they are
// the same (nearly always).
type ConversationState struct {
	Status          string
	LakeRunID       sql.NullString
	ClientCallID    sql.NullString
	InteractionDate sql.NullTime // as last patched, in UTC
}

// ConversationStates reads the states of conversations of an organization.
// The ids of one page are close together (UUIDv7): when they are most of
// their range, the range is read in one index scan and the few others
// dropped here; when they are sparse in it (a page filtered by hierarchy)
// each is looked up by its key.
func (c *InteractionStore) ConversationStates(ctx context.Context, orgID string, ids []string, sparse bool) (map[string]ConversationState, error) {
	out := make(map[string]ConversationState, len(ids))
	if len(ids) == 0 {
		return out, nil
	}
	const columns = `SELECT id, status, lake_run_id, client_call_id, interaction_date FROM interactions`
	var query string
	var args []any
	var wanted map[string]bool // a dense read's ids, to drop the others
	if sparse {
		query, args = columns+` WHERE `+anyOf("id")+` AND org_id = ?`, []any{list(ids), orgID}
	} else {
		lo, hi := idRange(ids)
		query, args = columns+` WHERE org_id = ? AND id BETWEEN ? AND ?`, []any{orgID, lo, hi}
		wanted = make(map[string]bool, len(ids))
		for _, id := range ids {
			wanted[id] = true
		}
	}
	rows, err := c.db.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		var id string
		var s ConversationState
		if err := rows.Scan(&id, &s.Status, &s.LakeRunID, &s.ClientCallID, &s.InteractionDate); err != nil {
			return nil, err
		}
		if !sparse && !wanted[id] {
			continue
		}
		s.InteractionDate.Time = s.InteractionDate.Time.UTC()
		out[id] = s
	}
	return out, rows.Err()
}

// idRange is the smallest and largest of ids (not empty).
func idRange(ids []string) (lo, hi string) {
	lo, hi = ids[0], ids[0]
	for _, id := range ids {
		lo, hi = min(lo, id), max(hi, id)
	}
	return lo, hi
}
