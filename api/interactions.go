package api

import (
	"context"
	"errors"
	"maps"
	"net/http"
	"strings"

	"github.com/gin-gonic/gin"

	"github.com/earshot/earshot/api/problem"
	"github.com/earshot/earshot/internal/contract/dates"
	"github.com/earshot/earshot/warehouse/catalog"
	"github.com/earshot/earshot/warehouse/results"
)

// The deprecated /Interactions operations: the vendor's older view of a
// conversation, answered from the data of /Metadata (the record),
// /ModelResults (its current results) and /Conversations/Transcriptions.

// interactionItem is an interaction as /Interactions shapes it.
type interactionItem struct {
	ID              string          `json:"id"`
	ClientCallID    *string         `json:"clientCallId"`
	InteractionDate dates.Timestamp `json:"interactionDate"`
	// Agent is omitted when none is known: the document declares it an
	// object, not nullable.
	Agent             *interactionAgent   `json:"agent,omitempty"`
	ClassifierResults []interactionResult `json:"classifierResults"`
	ArrivedOn         dates.Timestamp     `json:"arrivedOn"`
	ModifiedOn        dates.Timestamp     `json:"modifiedOn"`
	Status            string              `json:"status"`
	Transcriptions    *[]transcription    `json:"transcriptions"`
	MetadataExtended  map[string]string   `json:"metadataExtended"`
	EvaluationIDs     []string            `json:"evaluationIds"`
	Duration          int64               `json:"duration"` // non-nullable: 0 for a chat
	MessageCount      *int                `json:"messageCount"`
	MediaType         string              `json:"mediaType"`
}

type interactionAgent struct {
	ID         string  `json:"id"`
	FullName   *string `json:"fullName"`
	AgentCode  *string `json:"agentCode"`
	AgentEmail *string `json:"agentEmail"`
}

// interactionResult is a classifier's current result: "True"/"False" for a
// boolean classifier (the vendor's casing here), else its text.
type interactionResult struct {
	Name       string          `json:"name"`
	ModifiedOn dates.Timestamp `json:"modifiedOn"`
	Result     *string         `json:"result"`
	Score      *float64        `json:"score"`
}

// Page sizes of GET and POST /Interactions (the vendor's bounds).
const (
	interactionsDefaultPageSize = 10
	interactionsMaxPageSize     = 20
)

// interactionsParams are the parameters of GET /Interactions; POST adds
// HierarchyIds.
var interactionsParams = []string{"DateReference", "StartDate", "EndDate", "Status", "EddyEffect", "LastId", "PageSize", "HierarchyIds"}

func (s *conversationsAPI) getInteractions(c *gin.Context) error {
	get := queryParams(c)
	return s.interactions(c, func(name string) (string, bool) {
		if name == "HierarchyIds" { // a member of the POST body only
			return "", false
		}
		return get(name)
	})
}

func (s *conversationsAPI) postInteractions(c *gin.Context) error {
	problem.NameFieldsAsBody(c)
	body, err := readBody(c)
	if err != nil {
		return err
	}
	for _, name := range interactionsParams {
		body.Text(name)
	}
	if p := body.Problem(); p != nil {
		return p
	}
	return s.interactions(c, body.Text)
}

// interactionsRequest is a checked /Interactions request.
type interactionsRequest struct {
	page   results.PageQuery
	status string // "" for both processed statuses
	// eddy is the classifier EddyEffect filters on, and the result it wants.
	eddy       string
	eddyResult bool
	models     modelSet // every active classifier
}

// interactions answers GET and POST /Interactions: processed
// conversations in the window, in id order, with their results and
// transcripts.
func (s *conversationsAPI) interactions(c *gin.Context, get paramReader) error {
	req, p := s.readInteractionsRequest(c, get)
	if p != nil {
		return p
	}
	ctx := c.Request.Context()
	current := map[string]modelResultsItem{}
	fetch := func(ctx context.Context, rows []results.Conversation) (results.Keep, error) {
		cands, err := s.deps.Results.ModelCandidates(ctx, req.page, rows, req.models.IDs)
		if err != nil {
			return nil, err
		}
		reviews, err := s.deps.Reviews.Reviews(ctx, req.page.OrgID, results.IDs(rows))
		if err != nil {
			return nil, err
		}
		return func(_ context.Context, batch []results.Conversation) ([]results.Conversation, error) {
			machine := cands.Current(results.Runs(batch))
			out := batch[:0]
			for _, cv := range batch {
				if req.status != "" && cv.Status != req.status {
					continue
				}
				item := processedItem(cv, req.models, machine[cv.ID], reviews[cv.ID])
				if req.eddy != "" && !hasResult(item, req.eddy, req.eddyResult) {
					continue
				}
				current[cv.ID] = item
				out = append(out, cv)
			}
			return out, nil
		}, nil
	}
	convs, _, err := s.deps.Results.Page(ctx, req.page, fetch)
	if err != nil {
		return err
	}
	if len(convs) == 0 {
		return problem.New(http.StatusNotFound, "No processed interaction matches these filters in this date range.")
	}
	items, err := s.interactionItems(ctx, req.page.OrgID, results.IDs(convs), current)
	if err != nil {
		return err
	}
	c.JSON(http.StatusOK, items)
	return nil
}

// hasResult tells whether an item's current result of a boolean
// classifier is want.
func hasResult(item modelResultsItem, classifierID string, want bool) bool {
	for _, r := range *item.ModelResults {
		if r.ModelID == classifierID {
			return r.Result != nil && *r.Result == want
		}
	}
	return false
}

// readInteractionsRequest checks every parameter, naming each bad one.
func (s *conversationsAPI) readInteractionsRequest(c *gin.Context, get paramReader) (interactionsRequest, *problem.Problem) {
	errs := fieldErrors{}
	req := interactionsRequest{page: results.PageQuery{OrgID: orgID(c), Limit: interactionsDefaultPageSize}}
	req.page.ByInteraction = errs.choice(get, "DateReference", "ArrivalDate", "InteractionDate") == "InteractionDate"
	if from, to := errs.window(get); from != nil {
		req.page.From, req.page.To = *from, *to
	}
	req.status = errs.choice(get, "Status", catalog.StatusSampled, catalog.StatusReadyToSample)
	eddy := errs.choice(get, "EddyEffect", "true", "false")
	req.page.Limit = errs.boundedPageSize(get, "PageSize", interactionsDefaultPageSize, interactionsMaxPageSize)
	req.page.AfterID = errs.guid(get, "LastId")
	hierarchyIDs := errs.guids(get, "HierarchyIds")
	if len(errs) > 0 {
		return req, errs.problem()
	}
	ctx := c.Request.Context()
	var err error
	if req.page.AfterID, err = s.internalID(ctx, req.page.OrgID, req.page.AfterID); err != nil {
		return req, s.internal(c, err)
	}
	if req.page.NodeIDs, req.page.Scope, err = s.visibleNodes(ctx, req.page.OrgID, errs, "HierarchyIds", hierarchyIDs, "", nil); err != nil {
		return req, s.internal(c, err)
	}
	if req.models, err = s.activeModels(ctx, req.page.OrgID); err != nil {
		return req, s.internal(c, err)
	}
	if eddy != "" {
		req.eddyResult = eddy == "true"
		for _, id := range req.models.IDs {
			if sameName(req.models.fields[id].ModelName, "Eddy Effect") {
				req.eddy = id
			}
		}
		if req.eddy == "" {
			errs.add("EddyEffect", "filters on the result of a classifier named Eddy Effect, and your organization has none; create one or leave EddyEffect out.")
		}
	}
	return req, errs.problem()
}

// activeModels is every active classifier of the organization as a model
// set naming them all.
func (s *shared) activeModels(ctx context.Context, org string) (modelSet, error) {
	active, _, err := s.reviews.Active(ctx, org)
	set := modelSet{fields: map[string]*modelFields{}}
	for _, cl := range active {
		set.fields[cl.ID] = newModelFields(cl.ID, cl.Name)
		set.name(cl.ID)
	}
	return set, err
}

// getInteraction is GET /Interactions/{AmdID}: any interaction of the
// organization, with results and transcript once it is processed.
func (s *conversationsAPI) getInteraction(c *gin.Context) error {
	id, err := pathGUID(c, "id")
	if err != nil {
		return err
	}
	ctx, org := c.Request.Context(), orgID(c)
	own, err := s.internalID(ctx, org, id)
	if err != nil {
		return err
	}
	it, err := s.deps.Interactions.Interaction(ctx, org, own)
	if err == nil && !reads(ctx).Allows(it.MediaType, it.HierarchyNodeID) {
		err = catalog.ErrNotFound // out of the acting user's reach: as unknown
	}
	if err != nil {
		return missing(err, "No interaction with this id exists in your organization.")
	}
	current := map[string]modelResultsItem{}
	if it.LakeRunID != nil {
		models, err := s.activeModels(ctx, org)
		if err != nil {
			return err
		}
		cv := results.ConversationOf(it)
		found, err := s.reviews.Read(ctx, org, models.Models, []results.Conversation{cv})
		if err != nil {
			return err
		}
		current[it.ID] = processedItem(cv, models, found.Machine[it.ID], found.Reviews[it.ID])
	}
	items, err := s.interactionItems(ctx, org, []string{it.ID}, current)
	if err != nil {
		return err
	}
	c.JSON(http.StatusOK, items[0])
	return nil
}

// interactionItems lays out interactions (by their own ids, in that
// order) with their current results (by own id; none for one not
// processed), agents and transcripts.
func (s *conversationsAPI) interactionItems(ctx context.Context, org string, ids []string, current map[string]modelResultsItem) ([]interactionItem, error) {
	records, err := s.deps.Interactions.Interactions(ctx, org, catalog.InteractionFilter{IDs: ids, ExactIDs: true, Limit: len(ids)})
	if err != nil {
		return nil, err
	}
	byID := map[string]catalog.Interaction{}
	var public []string
	for _, it := range records {
		byID[it.ID] = it
		public = append(public, it.Public())
	}
	agents := map[string]*interactionAgent{}
	for _, it := range records {
		if it.AgentID == nil || agents[*it.AgentID] != nil {
			continue
		}
		a, err := s.deps.People.Agent(ctx, org, *it.AgentID)
		if err != nil {
			return nil, err
		}
		agents[a.ID] = agentOf(a)
	}
	evaluations, err := s.deps.Quality.Evaluations(ctx, org, catalog.EvaluationFilter{ConversationIDs: ids, Limit: maxEvaluationIDs * len(ids)})
	if err != nil {
		return nil, err
	}
	evaluationIDs := map[string][]string{}
	for _, e := range evaluations {
		evaluationIDs[e.ConversationID] = append(evaluationIDs[e.ConversationID], e.ID)
	}
	transcripts, failures := s.transcripts(ctx, org, public, false)
	for _, f := range failures {
		if f.status == http.StatusInternalServerError {
			return nil, errTranscripts
		}
	}
	items := make([]interactionItem, 0, len(ids))
	for _, id := range ids {
		it, ok := byID[id]
		if !ok {
			continue // gone since the page was read
		}
		item := interactionItem{ID: it.Public(), ClientCallID: it.ClientCallID, InteractionDate: dates.Timestamp(it.ArrivedOn),
			ArrivedOn: dates.Timestamp(it.ArrivedOn), ModifiedOn: dates.Timestamp(it.ModifiedOn), Status: it.Status,
			MetadataExtended: maps.Clone(it.ExtendedMetadata), EvaluationIDs: orEmpty(evaluationIDs[it.ID]), Duration: deref(it.CallDurationMillis),
			MessageCount: it.ChatMessageCount, MediaType: it.MediaType}
		if it.InteractionDate != nil {
			item.InteractionDate = dates.Timestamp(*it.InteractionDate)
		}
		if it.AgentID != nil {
			item.Agent = agents[*it.AgentID]
		}
		if body := transcripts[it.Public()]; body != nil {
			item.Transcriptions = body.Transcriptions
		}
		if set, ok := current[it.ID]; ok {
			item.ClassifierResults = interactionResults(set)
		}
		items = append(items, item)
	}
	return items, nil
}

// maxEvaluationIDs bounds the evaluations an interaction lists.
const maxEvaluationIDs = 100

// orEmpty is a list, [] rather than null when empty.
func orEmpty(list []string) []string {
	if list == nil {
		return []string{}
	}
	return list
}

// errTranscripts: the lake's transcripts could not be read (transcripts
// logged why).
var errTranscripts = errors.New("the transcripts of the page could not be read")

func agentOf(a catalog.Agent) *interactionAgent {
	view := &interactionAgent{ID: a.ID, AgentCode: a.AgentCode}
	if name := strings.TrimSpace(a.FirstName + " " + a.LastName); name != "" {
		view.FullName = &name
	}
	if a.AgentEmail != "" {
		view.AgentEmail = &a.AgentEmail
	}
	return view
}

// interactionResults are a result set's current values in the vendor's
// older form.
func interactionResults(set modelResultsItem) []interactionResult {
	out := []interactionResult{}
	for _, r := range *set.ModelResults {
		v := interactionResult{Name: r.ModelName, ModifiedOn: set.EventTime, Result: r.TextResult}
		if r.Result != nil {
			text := "False"
			if *r.Result {
				text = "True"
			}
			v.Result = &text
		}
		out = append(out, v)
	}
	return out
}
