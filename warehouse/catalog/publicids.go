package catalog

import (
	"context"
	"errors"
)

// ErrIDTaken: the organization has an interaction with that id.
var ErrIDTaken = errors.New("an interaction with this id already exists")

// IDTaken tells whether an id names an interaction of the organization,
// as its own id or as the id its client chose.
func (c *InteractionStore) IDTaken(ctx context.Context, orgID, id string) (bool, error) {
	var n int
	err := c.db.QueryRowContext(ctx, `SELECT count(*) FROM interactions WHERE org_id = ? AND (public_id = ? OR id = ?)`,
		orgID, id, id).Scan(&n)
	return n > 0, err
}

// InternalIDs maps the ids a client gave that are client-chosen ids of the
// organization's interactions to those interactions' own ids. Any other id
// is its own (absent from the map).
func (c *InteractionStore) InternalIDs(ctx context.Context, orgID string, ids []string) (map[string]string, error) {
	out := map[string]string{}
	if len(ids) == 0 {
		return out, nil
	}
	rows, err := c.db.QueryContext(ctx, `SELECT public_id, id FROM interactions WHERE org_id = ? AND `+anyOf("public_id"),
		orgID, list(ids))
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		var public, id string
		if err := rows.Scan(&public, &id); err != nil {
			return nil, err
		}
		out[public] = id
	}
	return out, rows.Err()
}

// PublicIDs maps the ids of the organization's interactions among ids
// whose client chose an id to that id. Any other interaction's id is
// public (absent from the map). The ids of one page lie in one range of
// the time-ordered ids, which the partial index reads at once.
func (c *InteractionStore) PublicIDs(ctx context.Context, orgID string, ids []string) (map[string]string, error) {
	out := map[string]string{}
	if len(ids) == 0 {
		return out, nil
	}
	lo, hi := idRange(ids)
	rows, err := c.db.QueryContext(ctx, `SELECT id, public_id FROM interactions
		WHERE org_id = ? AND public_id IS NOT NULL AND id BETWEEN ? AND ?`, orgID, lo, hi)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		var id, public string
		if err := rows.Scan(&id, &public); err != nil {
			return nil, err
		}
		out[id] = public
	}
	return out, rows.Err()
}
