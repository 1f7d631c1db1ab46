package catalog

import (
	"context"
	"database/sql"
)

// SampleQA moves a share of ReadyToSample conversations to Sampled, per
// organization, agent and ISO week of arrival (CONTRACT §4): each such
// group ends with ceil(rate × its processed conversations) Sampled, the
// missing ones taken in the order of md5(seed ‖ id). The same seed and
// data choose the same conversations, and a second run finds every group
// full and changes nothing. Conversations without an agent form one group
// per week. Each conversation it samples gets a workflow of every review
// workflow template that asks for one, in the same transaction. It returns
// how many conversations it moved and how many workflows it started.
// orgID narrows it to one organization ("" samples every one).
func (c *InteractionStore) SampleQA(ctx context.Context, rate float64, seed, orgID string) (moved, started int64, err error) {
	// The Monday of the arrival's ISO week, and ceil(wanted), as each
	// engine writes them.
	week, atLeast := `date(arrived_on, '-6 days', 'weekday 1')`, `CAST(wanted AS INTEGER) + (wanted > CAST(wanted AS INTEGER))`
	if c.postgres {
		week, atLeast = `CAST(date_trunc('week', arrived_on) AS date)`, `CAST(ceil(wanted) AS INTEGER)`
	}
	err = c.inTx(ctx, func(tx *sql.Tx) error {
		moved, started = 0, 0
		// processed is read once, MATERIALIZED: SQLite otherwise folds it
		// into the join with its groups, and reads the organization's
		// conversations again for every agent and week (minutes for a
		// million). The draw is computed for the candidates alone.
		rows, err := tx.QueryContext(ctx, `WITH processed AS MATERIALIZED (
				SELECT id, org_id, status, coalesce(agent_id, agent_code, '') AS agent, `+week+` AS week
				FROM interactions
				WHERE status IN ('ReadyToSample', 'Sampled') AND lake_run_id IS NOT NULL AND (? = '' OR org_id = ?)),
			groups AS (
				SELECT org_id, agent, week, count(*) * CAST(? AS DOUBLE PRECISION) AS wanted,
				       count(*) FILTER (WHERE status = 'Sampled') AS sampled
				FROM processed GROUP BY org_id, agent, week),
			missing AS (
				SELECT org_id, agent, week, `+atLeast+` - sampled AS missing
				FROM groups),
			candidates AS (
				SELECT p.id, g.missing,
				       row_number() OVER (PARTITION BY p.org_id, p.agent, p.week ORDER BY md5(CAST(? AS TEXT) || p.id), p.id) AS pick
				FROM processed p JOIN missing g USING (org_id, agent, week)
				WHERE p.status = 'ReadyToSample' AND g.missing > 0)
			UPDATE interactions SET status = 'Sampled', modified_on = ?
			WHERE id IN (SELECT id FROM candidates WHERE pick <= missing)
			RETURNING org_id, id`, orgID, orgID, rate, seed, now())
		if err != nil {
			return err
		}
		sampled := map[string][]string{}
		for rows.Next() {
			var org, id string
			if err := rows.Scan(&org, &id); err != nil {
				rows.Close()
				return err
			}
			sampled[org] = append(sampled[org], id)
			moved++
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return err
		}
		started, err = startSampledWorkflows(ctx, tx, sampled)
		return err
	})
	return moved, started, err
}
