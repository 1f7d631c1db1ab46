package catalog

import (
	"context"
	"database/sql"
	"time"
)

// tickRetention is how long claimed ticks are kept (they are only compared
// with the tick of the moment).
const tickRetention = 7 * 24 * time.Hour

// ClaimTick claims a scheduled job's tick for owner: true for the first
// process to claim it, false for every other (which then does not run it).
// Ticks older than a week are dropped on the way.
func (c *JobStore) ClaimTick(ctx context.Context, job string, tick time.Time, owner string) (bool, error) {
	claimed := false
	err := c.inTx(ctx, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, `DELETE FROM job_ticks WHERE tick < ?`, stamp(tick.Add(-tickRetention))); err != nil {
			return err
		}
		// DO NOTHING rather than a caught unique violation: on PostgreSQL
		// a failed statement aborts the whole transaction.
		res, err := tx.ExecContext(ctx, `INSERT INTO job_ticks (job, tick, owner, claimed_on) VALUES (?, ?, ?, ?)
			ON CONFLICT DO NOTHING`, job, stamp(tick), owner, now())
		if err != nil {
			return err
		}
		n, err := res.RowsAffected()
		claimed = n == 1
		return err
	})
	return claimed, err
}
