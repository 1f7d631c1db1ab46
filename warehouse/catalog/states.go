package catalog

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"time"

	json "github.com/goccy/go-json"
	"github.com/mattn/go-sqlite3"
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
	var where string
	var args []any
	var wanted map[string]bool // a dense read's ids, to drop the others
	if sparse {
		where, args = anyOf("id")+` AND org_id = ?`, []any{list(ids), orgID}
	} else {
		lo, hi := idRange(ids)
		where, args = `org_id = ? AND id BETWEEN ? AND ?`, []any{orgID, lo, hi}
		wanted = make(map[string]bool, len(ids))
		for _, id := range ids {
			wanted[id] = true
		}
	}
	read := c.statesPacked
	if c.postgres {
		read = c.statesByRow
	}
	err := read(ctx, where, args, func(id string, s ConversationState) {
		if sparse || wanted[id] {
			out[id] = s
		}
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// statesByRow reads the states of the interactions where selects, a row
// each: pgx reads PostgreSQL's rows in its binary form, faster than
// PostgreSQL builds them into one JSON value.
func (c *InteractionStore) statesByRow(ctx context.Context, where string, args []any, each func(string, ConversationState)) error {
	rows, err := c.db.QueryContext(ctx, `SELECT id, status, lake_run_id, client_call_id, interaction_date FROM interactions WHERE `+where, args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var id string
		var s ConversationState
		if err := rows.Scan(&id, &s.Status, &s.LakeRunID, &s.ClientCallID, &s.InteractionDate); err != nil {
			return err
		}
		s.InteractionDate.Time = s.InteractionDate.Time.UTC()
		each(id, s)
	}
	return rows.Err()
}

// statesPacked reads the states of the interactions where selects from
// SQLite as one JSON array of [id, status, lake run, client call id,
// interaction date], NULL as null and a client call id marked by a
// leading "+" (an empty one is not NULL): a page's thousand states cross
// the driver as one value instead of a thousand rows of five columns, each
// converted on its own.
func (c *InteractionStore) statesPacked(ctx context.Context, where string, args []any, each func(string, ConversationState)) error {
	var packed string
	err := c.db.QueryRowContext(ctx, `SELECT json_group_array(json_array(id, status, lake_run_id, '+' || client_call_id, interaction_date))
		FROM interactions WHERE `+where, args...).Scan(&packed)
	if err != nil {
		return err
	}
	var rows [][5]string // null reads as ""
	if err := json.Unmarshal([]byte(packed), &rows); err != nil {
		return fmt.Errorf("conversation states: %w", err)
	}
	for _, r := range rows {
		s := ConversationState{Status: r[1], LakeRunID: sql.NullString{String: r[2], Valid: r[2] != ""}}
		if call, ok := strings.CutPrefix(r[3], "+"); ok {
			s.ClientCallID = sql.NullString{String: call, Valid: true}
		}
		if r[4] != "" {
			when, err := storedTime(r[4])
			if err != nil {
				return fmt.Errorf("conversation %s: interaction date: %w", r[0], err)
			}
			s.InteractionDate = sql.NullTime{Time: when, Valid: true}
		}
		each(r[0], s)
	}
	return nil
}

// storedTime reads a time SQLite stored, as its text: as the driver reads
// a timestamp column (the forms it knows, in UTC).
func storedTime(text string) (time.Time, error) {
	text = strings.TrimSuffix(text, "Z")
	for _, layout := range sqlite3.SQLiteTimestampFormats {
		if t, err := time.ParseInLocation(layout, text, time.UTC); err == nil {
			return t.UTC(), nil
		}
	}
	return time.Time{}, fmt.Errorf("%q is not a time the catalog writes", text)
}

// idRange is the smallest and largest of ids (not empty).
func idRange(ids []string) (lo, hi string) {
	lo, hi = ids[0], ids[0]
	for _, id := range ids {
		lo, hi = min(lo, id), max(hi, id)
	}
	return lo, hi
}
