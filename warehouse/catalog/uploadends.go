package catalog

import (
	"context"
	"database/sql"
	"encoding/json"
	"time"
)

// uploadEnd is what an ingest commit writes on a processed upload's own
// record.
type uploadEnd struct {
	ID     string  `json:"id"`
	Status string  `json:"status"`
	Run    *string `json:"run"` // the run of its lake rows when it is a conversation, else none
	// Messages and Duration are its counts, when known (none keeps the
	// record's).
	Messages *int   `json:"messages"`
	Duration *int64 `json:"duration"`
	// Written is the interaction date its lake row has.
	Written time.Time `json:"written"`
}

// endUploads writes the uploads' outcomes, modified at t: each its status
// and lake run, its counts when known, its lease let go, and the
// interaction date of its lake row where the record's differs (a PATCH
// since the claim). On SQLite, in process, a statement a row costs
// little; on PostgreSQL each statement is a round trip, and a batch of
// single-conversation uploads has a thousand: the rows go as one JSON
// value, read by json_to_recordset, to one statement.
func (h handle) endUploads(ctx context.Context, tx *sql.Tx, ends []uploadEnd, t time.Time) error {
	if len(ends) == 0 {
		return nil
	}
	if h.postgres {
		rows, err := json.Marshal(ends)
		if err != nil {
			return err
		}
		_, err = tx.ExecContext(ctx, `UPDATE interactions SET status = v.status, lake_run_id = v.run,
			chat_message_count = coalesce(v.messages, interactions.chat_message_count),
			call_duration_millis = coalesce(v.duration, interactions.call_duration_millis),
			lease_owner = NULL, lease_expires = NULL, modified_on = ?,
			lake_interaction_on = CASE WHEN v.run IS NULL THEN NULL
				ELSE nullif(v.written, coalesce(interactions.interaction_date, interactions.arrived_on)) END
			FROM json_to_recordset(CAST(? AS json))
				AS v(id text, status text, run text, messages integer, duration bigint, written timestamp)
			WHERE interactions.id = v.id`, t, string(rows))
		return err
	}
	stmt, err := tx.PrepareContext(ctx, `UPDATE interactions SET status = ?, lake_run_id = ?,
		chat_message_count = coalesce(?, chat_message_count), call_duration_millis = coalesce(?, call_duration_millis),
		lease_owner = NULL, lease_expires = NULL, modified_on = ?,
		lake_interaction_on = CASE WHEN ? IS NULL THEN NULL ELSE nullif(?, coalesce(interaction_date, arrived_on)) END
		WHERE id = ?`)
	if err != nil {
		return err
	}
	defer stmt.Close()
	return eachRow(ctx, len(ends), func(rowCtx context.Context, i int) error {
		e := ends[i]
		_, err := stmt.ExecContext(rowCtx, e.Status, e.Run, e.Messages, e.Duration, t, e.Run, e.Written, e.ID)
		return err
	})
}
