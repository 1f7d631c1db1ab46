package catalog

import (
	"context"
	"database/sql"
	"time"
)

// ClaimPending leases up to limit pending uploads (status Processing, not
// leased or with an expired lease) of the given media types to owner.
func (c *InteractionStore) ClaimPending(ctx context.Context, owner string, mediaTypes []string, limit int, lease time.Duration) ([]Interaction, error) {
	var ids []string
	err := c.inTx(ctx, func(tx *sql.Tx) error {
		ids = ids[:0]
		t := now()
		rows, err := tx.QueryContext(ctx, `UPDATE interactions SET lease_owner = ?, lease_expires = ?
			WHERE id IN (SELECT id FROM interactions
			             WHERE status = 'Processing' AND `+anyOf("media_type")+`
			               AND (lease_expires IS NULL OR lease_expires < ?)
			             ORDER BY id LIMIT ?`+c.skipLocked()+`)
			RETURNING id`, owner, t.Add(lease), list(mediaTypes), t, limit)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var id string
			if err := rows.Scan(&id); err != nil {
				return err
			}
			ids = append(ids, id)
		}
		return rows.Err()
	})
	if err != nil || len(ids) == 0 {
		return nil, err
	}
	return queryAll(ctx, c.db, scanInteraction, `SELECT `+interactionColumns+` FROM interactions WHERE `+anyOf("id")+` ORDER BY id`, list(ids))
}

// RenewLeases extends owner's leases on the given uploads (still being
// processed) to lease from now, and reports how many it still held: fewer
// than len(ids) means another worker took some over.
func (c *InteractionStore) RenewLeases(ctx context.Context, owner string, ids []string, lease time.Duration) (int, error) {
	t := now()
	res, err := c.exec(ctx, `UPDATE interactions SET lease_expires = ?
		WHERE `+anyOf("id")+` AND lease_owner = ? AND status = 'Processing'`, t.Add(lease), list(ids), owner)
	if err != nil {
		return 0, err
	}
	n, err := res.RowsAffected()
	return int(n), err
}

// ReleaseLeases gives back owner's leases on the given uploads (still
// pending), so that any worker claims them at once; it reports how many
// it released.
func (c *InteractionStore) ReleaseLeases(ctx context.Context, owner string, ids []string) (int, error) {
	res, err := c.exec(ctx, `UPDATE interactions SET lease_owner = NULL, lease_expires = NULL
		WHERE `+anyOf("id")+` AND lease_owner = ? AND status = 'Processing'`, list(ids), owner)
	if err != nil {
		return 0, err
	}
	n, err := res.RowsAffected()
	return int(n), err
}

// PendingCount is how many uploads wait for the ingest job (the queue depth).
func (c *InteractionStore) PendingCount(ctx context.Context) (int64, error) {
	var n int64
	err := c.db.QueryRowContext(ctx, `SELECT count(*) FROM interactions WHERE status = 'Processing'`).Scan(&n)
	return n, err
}
