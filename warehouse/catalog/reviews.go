package catalog

import (
	"context"
	"database/sql"
	"encoding/json"
	"slices"
	"sync"
	"time"
)

// ReviewStore keeps human reviews of classifier results (an index by
// conversation kept in memory, added to in place).
type ReviewStore struct {
	handle
	reviews *orgCache[*reviewIndex]
}

// Review event types (CONTRACT §7).
const (
	EventModelResults   = "ModelResults"
	EventHumanReview    = "HumanReview"
	EventQualityControl = "QualityControl"
)

// Review is a result set recorded by a person.
type Review struct {
	ID             string
	OrgID          string
	ConversationID string
	EventType      string // HumanReview | QualityControl
	Reviewer       string
	EventTime      time.Time
	Results        []ReviewResult
}

// ReviewResult is a person's answer for one model.
type ReviewResult struct {
	ModelID    string  `json:"modelId"`
	Result     *bool   `json:"result"`
	TextResult *string `json:"textResult"`
}

// AddReview records a review set; the caller has checked the conversation
// and the models.
func (c *ReviewStore) AddReview(ctx context.Context, r Review) (Review, error) {
	r.ID, r.EventTime = NewID(), now()
	results, err := json.Marshal(r.Results)
	if err != nil {
		return r, err
	}
	err = c.inTx(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `INSERT INTO result_reviews (id, org_id, conversation_id, event_type, reviewer, event_time, model_results)
			VALUES (?, ?, ?, ?, ?, ?, ?)`, r.ID, r.OrgID, r.ConversationID, r.EventType, r.Reviewer, r.EventTime, string(results))
		if err != nil {
			return err
		}
		return c.changed(ctx, tx, domainReviews, r.OrgID)
	})
	if err != nil {
		return r, err
	}
	c.reviews.change(r.OrgID, func(ix *reviewIndex) *reviewIndex { ix.add(r); return ix })
	return r, nil
}

// reviewIndex is an organization's review sets by conversation, each
// conversation's oldest first, kept in memory: every result page looks
// its conversations up, and the catalog could only scan the whole table
// for them. Reviews are added, never changed, so the index grows in place
// (measured in the design notes, "Query pages").
type reviewIndex struct {
	mu     sync.RWMutex
	byConv map[string][]Review
}

func (ix *reviewIndex) add(r Review) {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	ix.byConv[r.ConversationID] = append(ix.byConv[r.ConversationID], r)
}

// loadReviews reads an organization's reviews into an index.
func loadReviews(ctx context.Context, q querier, orgID string) (*reviewIndex, error) {
	rows, err := q.QueryContext(ctx, `SELECT id, conversation_id, event_type, reviewer, event_time, model_results FROM result_reviews
		WHERE org_id = ? ORDER BY id`, orgID)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	ix := &reviewIndex{byConv: map[string][]Review{}}
	for rows.Next() {
		r := Review{OrgID: orgID}
		var results string
		if err := rows.Scan(&r.ID, &r.ConversationID, &r.EventType, &r.Reviewer, &r.EventTime, &results); err != nil {
			return nil, err
		}
		r.EventTime = r.EventTime.UTC()
		if err := json.Unmarshal([]byte(results), &r.Results); err != nil {
			return nil, err
		}
		ix.add(r)
	}
	return ix, rows.Err()
}

// Reviews are the review sets of conversations of an organization, each
// conversation's oldest first. They share their results with the kept
// index and must not be changed.
func (c *ReviewStore) Reviews(ctx context.Context, orgID string, conversationIDs []string) (map[string][]Review, error) {
	out := map[string][]Review{}
	if len(conversationIDs) == 0 {
		return out, nil
	}
	ix, err := c.reviews.load(orgID, func() (*reviewIndex, error) { return loadReviews(ctx, c.db, orgID) })
	if err != nil {
		return nil, err
	}
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	for _, id := range conversationIDs {
		if rs := ix.byConv[id]; len(rs) > 0 {
			out[id] = slices.Clip(rs) // an add appends to a new array, never to this one
		}
	}
	return out, nil
}

// ReviewedConversations are the organization's conversations that have a
// review set, sorted.
func (c *ReviewStore) ReviewedConversations(ctx context.Context, orgID string) ([]string, error) {
	ix, err := c.reviews.load(orgID, func() (*reviewIndex, error) { return loadReviews(ctx, c.db, orgID) })
	if err != nil {
		return nil, err
	}
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	ids := make([]string, 0, len(ix.byConv))
	for id := range ix.byConv {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	return ids, nil
}
