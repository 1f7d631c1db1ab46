package catalog

import (
	"context"
	"slices"
	"time"
)

// MovedConversation is a processed conversation whose interaction date was
// changed (PATCH /Metadata) after its lake row was written: the lake's row
// still has the date it was processed with.
type MovedConversation struct {
	ID              string
	Status          string
	LakeRunID       string
	ClientCallID    *string
	ArrivedOn       time.Time
	InteractionDate *time.Time // as last patched
	HierarchyNodeID *string
	MediaType       string
	// LakeInteractionOn is the date the lake's row is found at: its
	// interaction date, else its arrival.
	LakeInteractionOn time.Time
}

// InteractionOn is the date the catalog puts the conversation at.
func (m MovedConversation) InteractionOn() time.Time {
	if m.InteractionDate != nil {
		return *m.InteractionDate
	}
	return m.ArrivedOn
}

// MovedConversations lists an organization's processed conversations after
// afterID, in id order, that moved into or out of [from, to]: their date
// in the catalog or in the lake is inside it, and the two differ.
func (c *InteractionStore) MovedConversations(ctx context.Context, orgID, afterID string, from, to time.Time) ([]MovedConversation, error) {
	list, err := queryAll(ctx, c.db, scanMoved, `SELECT id, status, lake_run_id, client_call_id, arrived_on, interaction_date,
		hierarchy_node_id, media_type, lake_interaction_on FROM interactions
		WHERE org_id = ? AND id > ? AND lake_interaction_on IS NOT NULL AND lake_run_id IS NOT NULL
		AND status IN ('ReadyToSample', 'Sampled')
		AND (coalesce(interaction_date, arrived_on) BETWEEN ? AND ? OR lake_interaction_on BETWEEN ? AND ?)
		ORDER BY id`, orgID, afterID, stamp(from), stamp(to), stamp(from), stamp(to))
	return slices.DeleteFunc(list, func(m MovedConversation) bool { return m.InteractionOn().Equal(m.LakeInteractionOn) }), err
}

func scanMoved(s scanner) (MovedConversation, error) {
	var m MovedConversation
	err := s.Scan(&m.ID, &m.Status, &m.LakeRunID, &m.ClientCallID, &m.ArrivedOn, &m.InteractionDate, &m.HierarchyNodeID, &m.MediaType, &m.LakeInteractionOn)
	m.ArrivedOn, m.LakeInteractionOn = m.ArrivedOn.UTC(), m.LakeInteractionOn.UTC()
	m.InteractionDate = stampPtr(m.InteractionDate)
	return m, err
}
