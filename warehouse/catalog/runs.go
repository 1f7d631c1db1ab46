package catalog

import (
	"context"
	"time"
)

// CurrentRuns are the runs whose lake rows are current, by conversation,
// for those of ids (of the organization) that have committed rows.
func (c *InteractionStore) CurrentRuns(ctx context.Context, orgID string, ids []string) (map[string]string, error) {
	if len(ids) == 0 {
		return map[string]string{}, nil
	}
	return c.runs(ctx, `org_id = ? AND `+anyOf("id"), orgID, list(ids))
}

// RunsOfDay are the current runs of the organization's conversations that
// arrived on day (UTC): those of one lake partition.
func (c *InteractionStore) RunsOfDay(ctx context.Context, orgID string, day time.Time) (map[string]string, error) {
	from := day.UTC().Truncate(24 * time.Hour)
	return c.runs(ctx, `org_id = ? AND arrived_on >= ? AND arrived_on < ?`, orgID, from, from.Add(24*time.Hour))
}

// runs are the current runs of the conversations with committed rows
// that where selects.
func (c *InteractionStore) runs(ctx context.Context, where string, args ...any) (map[string]string, error) {
	return queryPairs(ctx, c.db, `SELECT id, lake_run_id FROM interactions WHERE lake_run_id IS NOT NULL AND `+where, args...)
}
