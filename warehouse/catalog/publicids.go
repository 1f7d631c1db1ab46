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
	var taken bool
	err := c.db.QueryRowContext(ctx, `SELECT EXISTS (SELECT 1 FROM interactions WHERE org_id = ? AND public_id = ?)
		OR EXISTS (SELECT 1 FROM interactions WHERE id = ? AND org_id = ?)`, orgID, id, id, orgID).Scan(&taken)
	return taken, err
}

// InternalIDs maps the ids a client gave that are client-chosen ids of the
// organization's interactions to those interactions' own ids. Any other id
// is its own (absent from the map).
func (c *InteractionStore) InternalIDs(ctx context.Context, orgID string, ids []string) (map[string]string, error) {
	if len(ids) == 0 {
		return map[string]string{}, nil
	}
	return queryPairs(ctx, c.db, `SELECT public_id, id FROM interactions WHERE org_id = ? AND `+anyOf("public_id"), orgID, list(ids))
}

// PublicIDs maps the ids of the organization's interactions among ids
// whose client chose an id to that id. Any other interaction's id is
// public (absent from the map). The ids of one page lie in one range of
// the time-ordered ids, which the partial index reads at once.
func (c *InteractionStore) PublicIDs(ctx context.Context, orgID string, ids []string) (map[string]string, error) {
	if len(ids) == 0 {
		return map[string]string{}, nil
	}
	lo, hi := idRange(ids)
	return queryPairs(ctx, c.db, `SELECT id, public_id FROM interactions
		WHERE org_id = ? AND public_id IS NOT NULL AND id BETWEEN ? AND ?`, orgID, lo, hi)
}

// ChatIDs maps the file names of an archive's chats (as the last run that
// processed it found them) to their ids.
func (c *InteractionStore) ChatIDs(ctx context.Context, orgID, uploadID string) (map[string]string, error) {
	return queryPairs(ctx, c.db, `SELECT file_name, id FROM interactions WHERE org_id = ? AND upload_id = ?`, orgID, uploadID)
}
