package api

import (
	"github.com/gin-gonic/gin"

	"github.com/earshot/earshot/warehouse/catalog"
	"github.com/earshot/earshot/warehouse/results"
)

// maxClientCallMatches bounds the conversations clientCallIds may return
// (a client call id is not unique).
const maxClientCallMatches = 1000

// getModelResultsByConversation is GET /ModelResults/Conversation: the
// conversations named by id or client call id (the union), in id order.
func (s *resultsAPI) getModelResultsByConversation(c *gin.Context) error {
	get := queryParams(c)
	errs := fieldErrors{}
	ids := errs.guids(get, "conversationIds")
	callIDs := csv(get("clientCallIds"))
	if len(ids) > maxListValues {
		errs.add("conversationIds", "must list at most 100 values.")
	}
	if len(callIDs) > maxListValues {
		errs.add("clientCallIds", "must list at most 100 values.")
	}
	if len(ids) == 0 && len(callIDs) == 0 && len(errs) == 0 {
		errs.add("conversationIds", "or clientCallIds is required (up to 100 of each).")
	}
	withUnprocessed := errs.boolean(get, "includeUnprocessedMedia", true)
	models, err := s.checkedModels(c, get, errs)
	if err != nil {
		return err
	}
	ctx, org := c.Request.Context(), orgID(c)
	ids, err = s.internalIDs(ctx, org, ids)
	if err != nil {
		return err
	}
	var found []catalog.Interaction
	for _, f := range []catalog.InteractionFilter{
		{IDs: ids, ExactIDs: true, Limit: maxListValues, Scope: reads(ctx)},
		{ClientCallIDs: callIDs, Limit: maxClientCallMatches, Scope: reads(ctx)},
	} {
		if f.IDs == nil && f.ClientCallIDs == nil {
			continue
		}
		list, err := s.deps.Interactions.Interactions(ctx, org, f)
		if err != nil {
			return err
		}
		found = append(found, list...)
	}
	seen := map[string]bool{}
	var convs []results.Conversation
	var unprocessed []catalog.Interaction
	for _, it := range found {
		if seen[it.ID] {
			continue
		}
		seen[it.ID] = true
		switch {
		case it.Status == catalog.StatusProcessing || it.Status == catalog.StatusFailedToProcess:
			if withUnprocessed {
				unprocessed = append(unprocessed, it)
			}
		case it.LakeRunID != nil: // processed conversations; a processed archive is not one
			convs = append(convs, results.ConversationOf(it))
		}
	}
	res, err := s.reviews.Read(ctx, org, models.Models, convs)
	if err != nil {
		return err
	}
	items := modelResultsItems(models, convs, res, unprocessed, withUnprocessed)
	if err := s.attachReceipts(ctx, org, items); err != nil {
		return err
	}
	if err := s.publicModelResults(ctx, org, items); err != nil {
		return err
	}
	writePage(c, items)
	return nil
}
