package api

import (
	"context"
	"github.com/earshot/earshot/internal/timing"
	"slices"
	"strings"
	"time"

	"github.com/gin-gonic/gin"
	"golang.org/x/sync/errgroup"

	"github.com/earshot/earshot/api/problem"
	"github.com/earshot/earshot/internal/app/reviews"
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
	// tail is the item's JSON after its clientCallId, when a page's fetch
	// wrote it ahead (writtenresults.go); nil: written with the page.
	tail []byte
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

// modelSet is the models a request names, in its order, with the fields
// each result shows of its model.
type modelSet struct {
	reviews.Models
	fields map[string]*modelFields // of every active model
	placed []*modelFields          // of the named models, by place
}

// name names an active model after the others.
func (m *modelSet) name(id string) {
	if _, named := m.Place(id); !named {
		m.Add(id)
		m.placed = append(m.placed, m.fields[id])
	}
}

// views are the values a result set has, in the request's model order.
func (m modelSet) views(values []reviews.Value) []modelResultView {
	out := make([]modelResultView, 0, len(values))
	for k, v := range values {
		if v.Set {
			out = append(out, modelResultView{modelFields: m.placed[k], Result: v.Result, TextResult: v.Text})
		}
	}
	return out
}

// readModelIDs checks modelIds against the organization's active
// classifiers; a bad list is a 400 that lists the ones it may name.
func (s *resultsAPI) readModelIDs(c *gin.Context, get paramReader) (modelSet, *problem.Problem) {
	all, err := s.activeModels(c.Request.Context(), orgID(c))
	if err != nil {
		return modelSet{}, s.internal(c, err)
	}
	set := modelSet{fields: all.fields}
	available := append([]string{}, all.IDs...) // [] when there are none
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
		set.name(id)
	}
	if len(errs) > 0 {
		p := problem.Invalid(errs)
		p.Detail = "modelIds must name active classifiers of your organization; availableModelIds lists them."
		p.Extensions = map[string]any{"availableModelIds": available}
		return set, p
	}
	return set, nil
}

// checkedModels is the 400 of the other parameters' errors, else reads
// modelIds (or the 400 of theirs).
func (s *resultsAPI) checkedModels(c *gin.Context, get paramReader, errs fieldErrors) (modelSet, error) {
	p := errs.problem()
	var models modelSet
	if p == nil {
		models, p = s.readModelIDs(c, get)
	}
	if p != nil {
		return models, p
	}
	return models, nil
}

// getModelResults is GET /ModelResults.
func (s *resultsAPI) getModelResults(c *gin.Context) error {
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
	stop := timing.Start(ctx, "params")
	nodes, scope, err := s.visibleNodes(ctx, orgID(c), errs, "", nil, "hierarchyCodes", csv(get("hierarchyCodes")))
	if err != nil {
		stop()
		return err
	}
	models, err := s.checkedModels(c, get, errs)
	if err != nil {
		stop()
		return err
	}
	after, err = s.internalID(ctx, orgID(c), after)
	stop()
	if err != nil {
		return err
	}
	q := results.PageQuery{OrgID: orgID(c), Window: results.Window{From: from, To: to}, NodeIDs: nodes, AfterID: after, Limit: limit, Scope: scope}
	// Each batch's items are laid out by its fetch, beside the catalog's
	// check of its rows; kept holds those of the conversations the page
	// keeps, in its order (Page appends each batch's kept ones in order).
	kept := []modelResultsItem{} // an empty page is [], not null
	written := &writtenPages{}
	defer written.giveBack()
	fetch := func(ctx context.Context, rows []results.Conversation) (results.Keep, error) {
		// The reviews and the receipts (the catalog) are read beside the
		// results (the lake).
		var reviewSets map[string][]catalog.Review
		var receipts map[string]catalog.Delivery
		ids := results.IDs(rows)
		catalogReads := errgroup.Group{}
		catalogReads.Go(func() (err error) {
			reviewSets, err = s.deps.Reviews.Reviews(ctx, q.OrgID, ids)
			return err
		})
		catalogReads.Go(func() (err error) {
			receipts, err = s.deps.Emissions.LatestReceipts(ctx, q.OrgID, ids)
			return err
		})
		// Rows are laid out as their results are chosen, once the reviews
		// and receipts are read.
		byRow := make([]modelResultsItem, len(rows))
		err := s.deps.Results.ModelResultsByRow(ctx, q, rows, models.IDs, func(lo int, machine [][]results.ModelResult) {
			if catalogReads.Wait() != nil {
				return
			}
			tails := written.write(len(machine), pageParts(len(machine)), func(dst []byte, i int) []byte {
				row := lo + i
				item := processedItem(rows[row], models, machine[i], reviewSets[rows[row].ID])
				item.EmissionReceipt = receiptOf(receipts, rows[row].ID)
				item.MediaStatus = processedStatusOf(withUnprocessed)
				byRow[row] = item
				return item.appendTail(dst)
			})
			for i, tail := range tails {
				byRow[lo+i].tail = tail
			}
		})
		if rerr := catalogReads.Wait(); err == nil {
			err = rerr
		}
		if err != nil {
			return nil, err
		}
		return func(_ context.Context, batch []results.Conversation) ([]results.Conversation, error) {
			for i, row := range results.RowsOf(rows, batch) {
				item := byRow[row]
				item.ClientCallID = batch[i].ClientCallID // as the catalog has it
				kept = append(kept, item)
			}
			return batch, nil
		}, nil
	}
	convs, _, err := s.deps.Results.Page(ctx, q, fetch)
	if err != nil {
		return err
	}
	var unprocessed []catalog.Interaction
	if withUnprocessed {
		unprocessed, err = s.deps.Interactions.Interactions(ctx, orgID(c), catalog.InteractionFilter{ArrivedFrom: &from, ArrivedTo: &to,
			Statuses: []string{catalog.StatusProcessing, catalog.StatusFailedToProcess}, NodeIDs: nodes, AfterID: after, Limit: limit, Scope: scope})
		if err != nil {
			return err
		}
	}
	// The processed conversations' receipts came with their results.
	others := unprocessedItems(unprocessed)
	if err := s.attachReceipts(ctx, q.OrgID, others); err != nil {
		return err
	}
	stop = timing.Start(ctx, "layout")
	items := withUnprocessedItems(kept[:len(convs)], others)
	stop()
	if len(items) > limit {
		items = items[:limit]
	}
	if err := s.publicModelResults(ctx, q.OrgID, items); err != nil {
		return err
	}
	writePage(c, items)
	return nil
}

// modelResultsItems lays out the items of processed conversations and of
// unprocessed ones, in id order. With withStatus every item carries its
// mediaStatus.
func modelResultsItems(models modelSet, convs []results.Conversation, found reviews.Found, unprocessed []catalog.Interaction, withStatus bool) []modelResultsItem {
	items := make([]modelResultsItem, len(convs), len(convs)+len(unprocessed))
	inParts(len(convs), pageParts(len(convs)), func(_, lo, hi int) {
		for i, cv := range convs[lo:hi] {
			items[lo+i] = processedItem(cv, models, found.Machine[cv.ID], found.Reviews[cv.ID])
			items[lo+i].MediaStatus = processedStatusOf(withStatus)
		}
	})
	return withUnprocessedItems(items, unprocessedItems(unprocessed))
}

// processedStatus is every processed item's mediaStatus (read only: one
// for all).
var processedStatus = &mediaStatus{Status: mediaProcessed}

// processedStatusOf is a processed item's mediaStatus: shown only when
// the request lists unprocessed conversations too (withStatus).
func processedStatusOf(withStatus bool) *mediaStatus {
	if withStatus {
		return processedStatus
	}
	return nil
}

// withUnprocessedItems adds the items of unprocessed conversations (each
// with its mediaStatus) to those of processed ones (in id order), in id
// order.
func withUnprocessedItems(items, unprocessed []modelResultsItem) []modelResultsItem {
	items = append(items, unprocessed...)
	if len(unprocessed) > 0 { // processed ones come in id order
		slices.SortFunc(items, func(a, b modelResultsItem) int { return strings.Compare(a.ID, b.ID) })
	}
	return items
}

// processedItem lays out a conversation's results by the current-result
// rule (reviews.CurrentOf).
func processedItem(cv results.Conversation, models modelSet, machine []results.ModelResult, reviewSets []catalog.Review) modelResultsItem {
	cur := reviews.CurrentOf(cv.ArrivedOn, models.Models, machine, reviewSets)
	current := models.views(cur.Values)
	prior := make([]resultSetView, len(cur.Prior))
	for i, set := range cur.Prior {
		prior[i] = resultSetView{EventType: set.EventType, EventTime: dates.Timestamp(set.EventTime), ModelResults: models.views(set.Values)}
	}
	return modelResultsItem{ID: cv.ID, ConversationID: cv.ID, ClientCallID: cv.ClientCallID, EventType: cur.EventType,
		EventTime: dates.Timestamp(cur.EventTime), ModelResults: &current, PriorResults: prior}
}

// unprocessedItems are the items of conversations still processing or
// failed.
func unprocessedItems(its []catalog.Interaction) []modelResultsItem {
	out := make([]modelResultsItem, len(its))
	for i, it := range its {
		out[i] = unprocessedItem(it)
	}
	return out
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
