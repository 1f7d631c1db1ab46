// Package reviews is the human review of results every door offers: a
// person's result set for a processed conversation, which /ModelResults
// then serves as the conversation's latest (eventType HumanReview or
// QualityControl). The use case decides permission and reach; the API and
// the console only translate.
package reviews

import (
	"context"

	"github.com/earshot/earshot/internal/app/access"
	"github.com/earshot/earshot/warehouse/catalog"
)

// Conversations reads a conversation's record (catalog.InteractionStore).
type Conversations interface {
	Interaction(ctx context.Context, orgID, id string) (catalog.Interaction, error)
}

// Store keeps reviews (catalog.ReviewStore).
type Store interface {
	Reviews(ctx context.Context, orgID string, conversationIDs []string) (map[string][]catalog.Review, error)
	AddReview(ctx context.Context, r catalog.Review) (catalog.Review, error)
}

// Service is the reviews' use cases, and the results they change.
type Service struct {
	Conversations Conversations
	Reviews       Store
	Lake          Lake
	Classifiers   Classifiers
}

// Record records a review of a processed conversation (its internal id)
// by the actor and answers the conversation: catalog.ErrNotFound when the
// conversation is not processed or out of the actor's reach, an
// *access.Refused when the actor may not review it.
func (s Service) Record(ctx context.Context, actor access.Actor, conversationID string, review catalog.Review) (catalog.Interaction, error) {
	if err := actor.Require(access.RecordReviews); err != nil {
		return catalog.Interaction{}, err
	}
	it, err := s.Conversations.Interaction(ctx, actor.OrgID, conversationID)
	if err != nil {
		return it, err
	}
	if err := actor.RequireOn(access.RecordReviews, it.MediaType, it.HierarchyNodeID); err != nil {
		return it, err
	}
	if it.LakeRunID == nil {
		return it, catalog.ErrNotFound
	}
	review.OrgID, review.ConversationID = actor.OrgID, it.ID
	_, err = s.Reviews.AddReview(ctx, review)
	return it, err
}
