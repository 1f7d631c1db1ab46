package api

import (
	"context"

	"github.com/earshot/earshot/internal/timing"
)

// A TextMedia upload may choose its conversation's id (CONTRACT §4). The
// conversation keeps Earshot's own time-ordered id everywhere inside — the
// catalog, the lake, the order of every cursor — and the API shows and
// takes the client's in its place. These translate at the API's edge.

// internalIDs are the conversations' own ids for the ids a request names,
// in its order.
func (s *shared) internalIDs(ctx context.Context, org string, ids []string) ([]string, error) {
	known, err := s.deps.Interactions.InternalIDs(ctx, org, ids)
	if err != nil {
		return nil, err
	}
	out := make([]string, len(ids))
	for i, id := range ids {
		out[i] = id
		if own, ok := known[id]; ok {
			out[i] = own
		}
	}
	return out, nil
}

// internalID is internalIDs of one id ("" stays "").
func (s *shared) internalID(ctx context.Context, org, id string) (string, error) {
	if id == "" {
		return "", nil
	}
	ids, err := s.internalIDs(ctx, org, []string{id})
	if err != nil {
		return "", err
	}
	return ids[0], nil
}

// publicIDs gives the id the API shows for each of the conversations' own
// ids.
func (s *shared) publicIDs(ctx context.Context, org string, ids []string) (func(string) string, error) {
	stop := timing.Start(ctx, "ids")
	chosen, err := s.deps.Interactions.PublicIDs(ctx, org, ids)
	stop()
	if err != nil {
		return nil, err
	}
	return func(id string) string {
		if public, ok := chosen[id]; ok {
			return public
		}
		return id
	}, nil
}

// publicModelResults shows the public ids in /ModelResults items.
func (s *resultsAPI) publicModelResults(ctx context.Context, org string, items []modelResultsItem) error {
	ids := make([]string, len(items))
	for i, it := range items {
		ids[i] = it.ID
	}
	public, err := s.publicIDs(ctx, org, ids)
	if err != nil {
		return err
	}
	for i := range items {
		items[i].ID = public(items[i].ID)
		items[i].ConversationID = items[i].ID
	}
	return nil
}
