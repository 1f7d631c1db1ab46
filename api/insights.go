package api

import (
	"context"
	"github.com/earshot/earshot/internal/timing"
	"net/http"
	"slices"
	"strconv"
	"sync"

	"github.com/gin-gonic/gin"

	"github.com/earshot/earshot/api/problem"
	"github.com/earshot/earshot/internal/app/window"
	"github.com/earshot/earshot/internal/contract/dates"
	"github.com/earshot/earshot/pipeline/analysis"
	"github.com/earshot/earshot/warehouse/catalog"
	"github.com/earshot/earshot/warehouse/results"
)

// insightItem is one conversation of /Conversations/Insights. A page
// writes its classifierResults ahead (insightLine).
type insightItem struct {
	ConversationID    string          `json:"conversationId"`
	ClientCallID      *string         `json:"clientCallId"`
	ArrivedOn         dates.Timestamp `json:"arrivedOn"`
	InteractionDate   dates.Timestamp `json:"interactionDate"`
	Status            string          `json:"status"`
	ClassifierResults []insightResult `json:"classifierResults"`
}

// insightResult is a classifier's result in an Insights item. The
// classifier's fields are shared by all its results of a page (encoding/json
// writes the embedded struct's fields in place).
type insightResult struct {
	*insightClassifier
	Result    string  `json:"result"`
	Reasoning *string `json:"reasoning"`
}

// insightClassifier is what an Insights result says of its classifier,
// with its JSON written once for a page's thousands of results.
type insightClassifier struct {
	ClassifierID           string `json:"classifierId"`
	ClassifierName         string `json:"classifierName"`
	ClassifierType         string `json:"classifierType"`
	ClassifierCategoryName string `json:"classifierCategoryName"`
	json                   []byte // {"classifierId":…,"classifierCategoryName":…
}

func newInsightClassifier(id, name, typ, category string) *insightClassifier {
	ic := &insightClassifier{ClassifierID: id, ClassifierName: name, ClassifierType: typ, ClassifierCategoryName: category}
	ic.json = ic.appendJSON(nil)
	return ic
}

// insightsRequest is a checked Insights request.
type insightsRequest struct {
	page results.PageQuery
	// classifiers are the ones whose results are listed; narrowed says a
	// classifier filter chose them (conversations without a result of
	// theirs are left out).
	classifiers map[string]*insightClassifier
	ids         []string
	narrowed    bool
}

func (s *resultsAPI) getInsights(c *gin.Context) error { return s.insights(c, queryParams(c)) }

// insightsParams are the parameters of /Conversations/Insights.
var insightsParams = []string{"DateReference", "StartDate", "EndDate", "ClassifierIds", "HierarchyIds", "HierarchyCodes",
	"ClassifierCategoryNames", "ClassifierTypes", "LastId", "PageSize"}

func (s *resultsAPI) postInsights(c *gin.Context) error {
	problem.NameFieldsAsBody(c)
	body, err := readBody(c)
	if err != nil {
		return err
	}
	for _, name := range insightsParams {
		body.Text(name) // a member of the wrong kind fails here
	}
	if p := body.Problem(); p != nil {
		return p
	}
	return s.insights(c, body.Text)
}

// insights answers GET and POST /Conversations/Insights.
func (s *resultsAPI) insights(c *gin.Context, get paramReader) error {
	stop := timing.Start(c.Request.Context(), "params")
	req, p := s.readInsightsRequest(c, get)
	stop()
	if p != nil {
		return p
	}
	ctx := c.Request.Context()
	// Each batch's results are chosen and written as JSON by its fetch as
	// they are read, beside the catalog's check of its rows; kept holds
	// those of the conversations the page keeps, in its order (Page appends
	// each batch's kept conversations in order).
	var kept [][]byte
	written := &writtenPages{}
	defer written.giveBack()
	fetch := func(ctx context.Context, rows []results.Conversation) (results.Keep, error) {
		current := make([][]results.ClassifierResult, len(rows))
		byRow := make([][]byte, len(rows))
		err := s.deps.Results.ClassifierResultsByRow(ctx, req.page, rows, req.ids, func(lo int, chosen [][]results.ClassifierResult) {
			copy(current[lo:], chosen)
			copy(byRow[lo:], written.insightResults(chosen, req.classifiers))
		})
		if err != nil {
			return nil, err
		}
		return func(_ context.Context, batch []results.Conversation) ([]results.Conversation, error) {
			out := batch[:0]
			for i, row := range results.RowsOf(rows, batch) {
				if req.narrowed && len(current[row]) == 0 {
					continue
				}
				out = append(out, batch[i])
				kept = append(kept, byRow[row])
			}
			return out, nil
		}, nil
	}
	// The first page's X-Total-Records is counted while the page is read.
	var total int64
	var countErr error
	var counted sync.WaitGroup
	if req.page.AfterID == "" {
		var narrow []string
		if req.narrowed {
			narrow = req.ids
		}
		counted.Go(func() {
			defer timing.Start(ctx, "count")()
			total, countErr = s.deps.Results.Count(ctx, req.page, narrow)
		})
	}
	convs, more, err := s.deps.Results.Page(ctx, req.page, fetch)
	counted.Wait()
	if err != nil {
		return err
	}
	if len(convs) == 0 {
		return problem.New(http.StatusNotFound, "No processed conversation matches these filters in this date range.")
	}
	if countErr != nil {
		return countErr
	}
	if req.page.AfterID == "" {
		c.Header("X-Total-Records", strconv.FormatInt(total, 10))
	}
	public, err := s.publicIDs(ctx, req.page.OrgID, results.IDs(convs))
	if err != nil {
		return err
	}
	c.Header("X-Has-More", strconv.FormatBool(more))
	// Set directly, not through Header.Set: Go would send X-Next-Lastid, and
	// some clients look headers up with the contract's exact spelling.
	c.Writer.Header()["X-Next-LastId"] = []string{public(convs[len(convs)-1].ID)}
	stop = timing.Start(ctx, "layout")
	items := make([]insightLine, len(convs))
	for i, cv := range convs {
		items[i] = insightLine{head: insightHeadOf(cv, public(cv.ID)), results: kept[i]}
	}
	stop()
	writePage(c, items)
	return nil
}

// insightHeadOf is a conversation's item without its results.
func insightHeadOf(cv results.Conversation, publicID string) insightItem {
	when := cv.ArrivedOn
	if cv.InteractionDate != nil {
		when = *cv.InteractionDate
	}
	return insightItem{ConversationID: publicID, ClientCallID: cv.ClientCallID, ArrivedOn: dates.Timestamp(cv.ArrivedOn),
		InteractionDate: dates.Timestamp(when), Status: cv.Status}
}

// readInsightsRequest checks every parameter, the window last: it is
// decided before any file is read.
func (s *resultsAPI) readInsightsRequest(c *gin.Context, get paramReader) (insightsRequest, *problem.Problem) {
	errs := fieldErrors{}
	req := insightsRequest{page: results.PageQuery{OrgID: orgID(c)}}
	req.page.ByInteraction = errs.choice(get, "DateReference", "ArrivalDate", "InteractionDate") == "InteractionDate"
	from, to := errs.window(get)
	req.page.Limit = errs.pageSize(get, "PageSize")
	req.page.AfterID = errs.guid(get, "LastId")
	classifierIDs := errs.guids(get, "ClassifierIds")
	hierarchyIDs := errs.guids(get, "HierarchyIds")
	codes := csv(get("HierarchyCodes"))
	categories := errs.values(get, "ClassifierCategoryNames", analysis.Categories)
	types := errs.values(get, "ClassifierTypes", analysis.Types)
	filtered := classifierIDs != nil || hierarchyIDs != nil || codes != nil || categories != nil || types != nil
	if from != nil && to != nil {
		req.page.From, req.page.To = *from, *to
		limit := window.Unfiltered
		if filtered {
			limit = window.Filtered
		}
		switch {
		case to.Before(*from): // named by window
		case to.Sub(*from) > limit && filtered:
			errs.add("EndDate", "must be at most "+window.Days(limit)+" days after StartDate.")
		case to.Sub(*from) > limit:
			errs.add("EndDate", "must be at most "+window.Days(window.Unfiltered)+" days after StartDate without a classifier or hierarchy filter ("+
				window.Days(window.Filtered)+" days with one).")
		}
	}
	if len(errs) > 0 {
		return req, errs.problem()
	}
	ctx := c.Request.Context()
	var err error
	if req.page.AfterID, err = s.internalID(ctx, req.page.OrgID, req.page.AfterID); err != nil {
		return req, s.internal(c, err)
	}
	if req.page.NodeIDs, req.page.Scope, err = s.visibleNodes(ctx, req.page.OrgID, errs, "HierarchyIds", hierarchyIDs, "HierarchyCodes", codes); err != nil {
		return req, s.internal(c, err)
	}
	all, err := s.deps.Classifiers.Classifiers(ctx, req.page.OrgID, catalog.ClassifierFilter{Categories: categories, Types: types})
	if err != nil {
		return req, s.internal(c, err)
	}
	req.classifiers = map[string]*insightClassifier{}
	for _, cl := range all {
		if classifierIDs == nil || slices.Contains(classifierIDs, cl.ID) {
			req.classifiers[cl.ID] = newInsightClassifier(cl.ID, cl.Name, cl.Type, cl.CategoryName)
			req.ids = append(req.ids, cl.ID)
		}
	}
	for _, id := range classifierIDs {
		if _, ok := req.classifiers[id]; !ok && !s.classifierExists(ctx, req.page.OrgID, id) {
			errs.add("ClassifierIds", id+" is not a classifier of your organization.")
		}
	}
	req.narrowed = classifierIDs != nil || categories != nil || types != nil
	if req.ids == nil {
		req.ids = []string{}
	}
	return req, errs.problem()
}

// classifierExists tells whether an id names a classifier of the
// organization (one that other filters may have left out).
func (s *resultsAPI) classifierExists(ctx context.Context, org, id string) bool {
	_, err := s.deps.Classifiers.Classifier(ctx, org, id)
	return err == nil
}
