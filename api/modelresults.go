package api

import (
	"context"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/gin-gonic/gin"

	"github.com/earshot/earshot/api/problem"
	"github.com/earshot/earshot/internal/app/window"
	"github.com/earshot/earshot/internal/contract/dates"
	"github.com/earshot/earshot/warehouse/catalog"
	"github.com/earshot/earshot/warehouse/results"
)

// modelResultsItem is one conversation of /ModelResults (CONTRACT §7).
type modelResultsItem struct {
	ID             string             `json:"id"`
	ConversationID string             `json:"conversationId"`
	ClientCallID   *string            `json:"clientCallId"`
	EventType      string             `json:"eventType"`
	EventTime      dates.Timestamp    `json:"eventTime"`
	MediaStatus    *mediaStatus       `json:"mediaStatus,omitempty"`
	ModelResults   *[]modelResultView `json:"modelResults"`
	// EmissionReceipt is omitted, not null, while there is none: strict
	// clients validate it as an object.
	EmissionReceipt *emissionReceipt `json:"emissionReceipt,omitempty"`
	PriorResults    []resultSetView  `json:"priorResults"`
}

// modelResultView is a model's result in an item. The model's fields are
// shared by all its results of a page (encoding/json writes the embedded
// struct's fields in place); nil marks a model place without a value.
type modelResultView struct {
	*modelFields
	Result     *bool   `json:"result"`
	TextResult *string `json:"textResult"`
}

// modelFields is what a result says of its model, with its JSON written
// once for a page's thousands of results.
type modelFields struct {
	ModelID   string `json:"modelId"`
	ModelName string `json:"modelName"`
	json      []byte // {"modelId":…,"modelName":…
}

func newModelFields(id, name string) *modelFields {
	mf := &modelFields{ModelID: id, ModelName: name}
	mf.json = mf.appendJSON(nil)
	return mf
}

type resultSetView struct {
	EventType    string            `json:"eventType"`
	EventTime    dates.Timestamp   `json:"eventTime"`
	ModelResults []modelResultView `json:"modelResults"`
}

type mediaStatus struct {
	Status string  `json:"status"`
	Reason *string `json:"reason"`
}

// Media statuses of /ModelResults with includeUnprocessedMedia.
const (
	mediaProcessed    = "Processed"
	mediaNotProcessed = "NotProcessed"
	notProcessedWhy   = "The media is still being processed; its results will follow."
)

// modelSet is the models a request names, in its order, with their names.
type modelSet struct {
	ids    []string
	fields map[string]*modelFields // of every active model
	index  map[string]int          // a named model's place in ids
}

// view is a model's result as an item shows it; ok is false for a model
// the request does not name.
func (m modelSet) view(modelID string, result *bool, text *string) (int, modelResultView, bool) {
	k, ok := m.index[modelID]
	return k, modelResultView{modelFields: m.fields[modelID], Result: result, TextResult: text}, ok
}

// readModelIDs checks modelIds against the organization's active
// classifiers; a bad list is a 400 that lists the ones it may name.
func (s *Server) readModelIDs(c *gin.Context, get paramReader) (modelSet, *problem.Problem) {
	active, err := s.deps.Classifiers.Classifiers(c.Request.Context(), orgID(c), catalog.ClassifierFilter{ActiveOnly: true})
	if err != nil {
		return modelSet{}, s.internal(c, err)
	}
	set := modelSet{fields: map[string]*modelFields{}, index: map[string]int{}}
	available := make([]string, len(active))
	for i, cl := range active {
		available[i] = cl.ID
		set.fields[cl.ID] = newModelFields(cl.ID, cl.Name)
	}
	errs := fieldErrors{}
	v, _ := get("modelIds")
	list := csv(v, true)
	if len(list) == 0 {
		errs.add("modelIds", "is required: the ids of the models (classifiers) whose results to return.")
	}
	for _, id := range errs.guids(get, "modelIds") {
		if _, ok := set.fields[id]; !ok {
			errs.add("modelIds", id+" is not an active classifier of your organization.")
			continue
		}
		if _, named := set.index[id]; !named {
			set.index[id] = len(set.ids)
			set.ids = append(set.ids, id)
		}
	}
	if len(errs) > 0 {
		p := problem.Invalid(errs)
		p.Detail = "modelIds must name active classifiers of your organization; availableModelIds lists them."
		p.Extensions = map[string]any{"availableModelIds": available}
		return set, p
	}
	return set, nil
}

// checkedModels answers the 400 of the other parameters' errors, else
// reads modelIds (answering their 400); ok says the request goes on.
func (s *Server) checkedModels(c *gin.Context, get paramReader, errs fieldErrors) (modelSet, bool) {
	p := errs.problem()
	var models modelSet
	if p == nil {
		models, p = s.readModelIDs(c, get)
	}
	if p != nil {
		problem.Write(c, p)
		return models, false
	}
	return models, true
}

// getModelResults is GET /ModelResults.
func (s *Server) getModelResults(c *gin.Context) {
	get := queryParams(c)
	errs := fieldErrors{}
	start, end := errs.date(get, "startDate", false), errs.date(get, "endDate", true)
	if start != nil && end != nil && end.Before(*start) {
		errs.add("endDate", "must not be before startDate.")
	}
	// The window after the floor and the defaults may hold no time at all
	// (an end before the floor, a start in the future): an empty page.
	from, to := window.Floor, time.Now().UTC()
	if start != nil && start.After(from) {
		from = *start
	}
	if end != nil {
		to = *end
	}
	limit := errs.pageSize(get, "pageSize")
	after := errs.guid(get, "lastId")
	withUnprocessed := errs.boolean(get, "includeUnprocessedMedia", false)
	ctx := c.Request.Context()
	nodes, scope, err := s.visibleNodes(ctx, orgID(c), errs, "", nil, "hierarchyCodes", csv(get("hierarchyCodes")))
	if err != nil {
		problem.Write(c, s.internal(c, err))
		return
	}
	models, ok := s.checkedModels(c, get, errs)
	if !ok {
		return
	}
	if after, err = s.internalID(ctx, orgID(c), after); err != nil {
		problem.Write(c, s.internal(c, err))
		return
	}
	q := results.PageQuery{OrgID: orgID(c), Window: results.Window{From: from, To: to}, NodeIDs: nodes, AfterID: after, Limit: limit, Scope: scope}
	found := pageResults{machine: map[string][]results.ModelResult{}, reviews: map[string][]catalog.Review{}}
	fetch := func(ctx context.Context, rows []results.Conversation) (results.Keep, error) {
		cands, err := s.deps.Results.ModelCandidates(ctx, q, rows, models.ids)
		if err != nil {
			return nil, err
		}
		reviews, err := s.deps.Reviews.Reviews(ctx, q.OrgID, results.IDs(rows))
		if err != nil {
			return nil, err
		}
		return func(_ context.Context, batch []results.Conversation) ([]results.Conversation, error) {
			maps.Copy(found.machine, cands.Current(results.Runs(batch)))
			maps.Copy(found.reviews, reviews)
			return batch, nil
		}, nil
	}
	convs, _, err := s.deps.Results.Page(ctx, q, fetch)
	if err != nil {
		problem.Write(c, s.internal(c, err))
		return
	}
	var unprocessed []catalog.Interaction
	if withUnprocessed {
		unprocessed, err = s.deps.Interactions.Interactions(ctx, orgID(c), catalog.InteractionFilter{ArrivedFrom: &from, ArrivedTo: &to,
			Statuses: []string{catalog.StatusProcessing, catalog.StatusFailedToProcess}, NodeIDs: nodes, AfterID: after, Limit: limit, Scope: scope})
		if err != nil {
			problem.Write(c, s.internal(c, err))
			return
		}
	}
	items := modelResultsItems(models, convs, found, unprocessed, withUnprocessed)
	if len(items) > limit {
		items = items[:limit]
	}
	if err := s.attachReceipts(ctx, q.OrgID, items); err != nil {
		problem.Write(c, s.internal(c, err))
		return
	}
	if err := s.publicModelResults(ctx, q.OrgID, items); err != nil {
		problem.Write(c, s.internal(c, err))
		return
	}
	writePage(c, items)
}

// pageResults are the results of a page's processed conversations: the
// machine's current ones from the lake, the review sets from the catalog.
type pageResults struct {
	machine map[string][]results.ModelResult
	reviews map[string][]catalog.Review
}

// readPageResults reads the results of processed conversations.
func (s *Server) readPageResults(ctx context.Context, org string, models modelSet, convs []results.Conversation) (pageResults, error) {
	machine, err := s.deps.Results.ModelResults(ctx, org, convs, models.ids)
	if err != nil {
		return pageResults{}, err
	}
	reviews, err := s.deps.Reviews.Reviews(ctx, org, results.IDs(convs))
	return pageResults{machine: machine, reviews: reviews}, err
}

// modelResultsItems lays out the items of processed conversations and of
// unprocessed ones, in id order. With withStatus every item carries its
// mediaStatus.
func modelResultsItems(models modelSet, convs []results.Conversation, found pageResults, unprocessed []catalog.Interaction, withStatus bool) []modelResultsItem {
	items := make([]modelResultsItem, 0, len(convs)+len(unprocessed))
	for _, cv := range convs {
		item := processedItem(cv, models, found.machine[cv.ID], found.reviews[cv.ID])
		if withStatus {
			item.MediaStatus = &mediaStatus{Status: mediaProcessed}
		}
		items = append(items, item)
	}
	for _, it := range unprocessed {
		items = append(items, unprocessedItem(it))
	}
	if len(unprocessed) > 0 { // processed ones come in id order
		slices.SortFunc(items, func(a, b modelResultsItem) int { return strings.Compare(a.ID, b.ID) })
	}
	return items
}

// resultSet is one set of results: the machine's, or a review.
type resultSet struct {
	eventType string
	eventTime time.Time
	// results has a place for each model of the request, in its order; a
	// model the set has no value for has a zero view (no model) there.
	results []modelResultView
}

// present are the values of a set's results, in the request's model
// order; they are gathered in place (the set is not read again).
func present(results []modelResultView) []modelResultView {
	out := results[:0]
	for _, v := range results {
		if v.modelFields != nil {
			out = append(out, v)
		}
	}
	return out
}

// processedItem lays out a conversation's result sets: the newest is the
// item's eventType and eventTime; its modelResults are each requested
// model's value in the newest set that has one (a review of some models
// leaves the others as the machine found them); the older sets are
// priorResults, oldest first. A page's items are a large share of its
// time, so a set is a slice by model place, not a map.
func processedItem(cv results.Conversation, models modelSet, machine []results.ModelResult, reviews []catalog.Review) modelResultsItem {
	var setsBuf [2]resultSet // the machine's and at most one review, nearly always
	sets := append(setsBuf[:0], resultSet{eventType: catalog.EventModelResults, eventTime: cv.ArrivedOn,
		results: make([]modelResultView, len(models.ids))})
	for _, m := range machine {
		if k, v, ok := models.view(m.ModelID, m.Result, m.TextResult); ok {
			sets[0].results[k] = v
		}
		if m.EventTime.After(sets[0].eventTime) {
			sets[0].eventTime = m.EventTime
		}
	}
	for _, r := range reviews {
		set := resultSet{eventType: r.EventType, eventTime: r.EventTime, results: make([]modelResultView, len(models.ids))}
		found := false
		for _, rr := range r.Results {
			if k, v, ok := models.view(rr.ModelID, rr.Result, rr.TextResult); ok {
				set.results[k], found = v, true
			}
		}
		if found {
			sets = append(sets, set)
		}
	}
	slices.SortStableFunc(sets, func(a, b resultSet) int { return a.eventTime.Compare(b.eventTime) })
	latest := sets[len(sets)-1]
	current := latest.results
	if len(sets) > 1 { // the newest set's values, else an older one's
		current = slices.Clone(latest.results)
		for k := range current {
			for i := len(sets) - 2; i >= 0 && current[k].modelFields == nil; i-- {
				current[k] = sets[i].results[k]
			}
		}
	}
	current = present(current)
	prior := []resultSetView{}
	for _, set := range sets[:len(sets)-1] {
		prior = append(prior, resultSetView{EventType: set.eventType, EventTime: dates.Timestamp(set.eventTime), ModelResults: present(set.results)})
	}
	return modelResultsItem{ID: cv.ID, ConversationID: cv.ID, ClientCallID: cv.ClientCallID, EventType: latest.eventType,
		EventTime: dates.Timestamp(latest.eventTime), ModelResults: &current, PriorResults: prior}
}

// unprocessedItem is a conversation still processing (NotProcessed) or
// failed, with no results.
func unprocessedItem(it catalog.Interaction) modelResultsItem {
	status := mediaStatus{Status: mediaNotProcessed}
	if it.Status == catalog.StatusFailedToProcess {
		status.Status = catalog.StatusFailedToProcess
		var reasons []string
		for _, f := range it.ProcessFailures {
			reasons = append(reasons, f.Message)
		}
		reason := strings.Join(reasons, " ")
		status.Reason = &reason
	} else {
		reason := notProcessedWhy
		status.Reason = &reason
	}
	return modelResultsItem{ID: it.ID, ConversationID: it.ID, ClientCallID: it.ClientCallID, EventType: catalog.EventModelResults,
		EventTime: dates.Timestamp(it.ArrivedOn), MediaStatus: &status, PriorResults: []resultSetView{}}
}
