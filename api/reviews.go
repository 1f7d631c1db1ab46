package api

import (
	"net/http"
	"strconv"
	"strings"

	"github.com/gin-gonic/gin"
	"github.com/google/uuid"

	"github.com/earshot/earshot/warehouse/catalog"
	"github.com/earshot/earshot/warehouse/results"
)

const reviewNotFound = "No processed conversation with this id exists in your organization."

// postReview is POST /ModelResults/Reviews: a person's result set for a
// processed conversation. It becomes the conversation's latest set; the
// answer is the conversation's /ModelResults item for the reviewed models.
func (s *resultsAPI) postReview(c *gin.Context) error {
	body, err := readBody(c)
	if err != nil {
		return err
	}
	conversationID := body.GUID("conversationId")
	if conversationID == nil && !body.Has("conversationId") {
		body.Fail("conversationId", "is required.")
	}
	eventType := body.Required("eventType")
	if eventType != nil {
		if *eventType = oneOf(*eventType, []string{catalog.EventHumanReview, catalog.EventQualityControl}); *eventType == "" {
			body.Fail("eventType", "must be HumanReview or QualityControl.")
		}
	}
	reviewer := body.Required("reviewer")
	var given []catalog.ReviewResult
	if !body.Has("modelResults") {
		body.Fail("modelResults", "is required: the reviewed models' results.")
	} else if body.Decode("modelResults", &given) && len(given) == 0 {
		body.Fail("modelResults", "must list at least one model's result.")
	}
	for i, r := range given {
		if id, err := uuid.Parse(r.ModelID); err == nil {
			given[i].ModelID = id.String()
		} else {
			body.Fail("modelResults["+strconv.Itoa(i)+"].modelId", "must be a GUID.")
		}
		if r.Result == nil && r.TextResult == nil {
			body.Fail("modelResults["+strconv.Itoa(i)+"]", "must give result (true or false) or textResult.")
		}
	}
	if p := body.Problem(); p != nil {
		return p
	}
	ids := make([]string, len(given))
	for i, r := range given {
		ids[i] = r.ModelID
	}
	models, p := s.readModelIDs(c, func(string) (string, bool) { return strings.Join(ids, ","), true })
	if p != nil {
		return p
	}
	ctx, org := c.Request.Context(), orgID(c)
	id, err := s.internalID(ctx, org, *conversationID)
	if err != nil {
		return err
	}
	it, err := s.reviews.Record(ctx, actorOf(ctx), id, catalog.Review{EventType: *eventType, Reviewer: *reviewer, Results: given})
	if err != nil {
		return missing(err, reviewNotFound)
	}
	conv := results.ConversationOf(it)
	convs := []results.Conversation{conv}
	found, err := s.reviews.Read(ctx, org, models.Models, convs)
	if err != nil {
		return err
	}
	item := modelResultsItems(models, convs, found, nil, false)[0]
	items := []modelResultsItem{item}
	if err := s.attachReceipts(ctx, org, items); err != nil {
		return err
	}
	item = items[0]
	item.ID, item.ConversationID = it.Public(), it.Public()
	c.JSON(http.StatusOK, item)
	return nil
}
