package api

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"net/http"
	"strconv"
	"strings"

	"github.com/gin-gonic/gin"

	"github.com/earshot/earshot/api/problem"
	"github.com/earshot/earshot/internal/contract/dates"
	"github.com/earshot/earshot/internal/signedurl"
	"github.com/earshot/earshot/warehouse/catalog"
	"github.com/earshot/earshot/warehouse/results"
)

// Result emission: an organization registers an HTTPS endpoint
// [extension]; the emit job (jobs/emit.go) delivers every new result set
// to it as the conversation's /ModelResults item; the endpoint's
// acknowledgement is the receipt /ModelResults items and GET /Receipts
// show.

// emissionReceipt is the latest acknowledged delivery of a conversation,
// on its /ModelResults item (omitted while there is none).
type emissionReceipt struct {
	EventTime           dates.Timestamp `json:"eventTime"`
	AuthenticxReceiptID *string         `json:"authenticxReceiptId"` // the vendor's name for its own receipt: Earshot's delivery id
	CustomerReceiptID   *string         `json:"customerReceiptId"`
}

// attachReceipts gives items (by their own ids) their conversations'
// latest receipts.
func (s *resultsAPI) attachReceipts(ctx context.Context, org string, items []modelResultsItem) error {
	ids := make([]string, len(items))
	for i, it := range items {
		ids[i] = it.ID
	}
	latest, err := s.deps.Emissions.LatestReceipts(ctx, org, ids)
	if err != nil {
		return err
	}
	for i := range items {
		items[i].EmissionReceipt = receiptOf(latest, items[i].ID)
	}
	return nil
}

// receiptOf is a conversation's latest receipt as its item shows it, from
// the latest receipts of the conversations (nil while it has none).
func receiptOf(latest map[string]catalog.Delivery, conversationID string) *emissionReceipt {
	d, ok := latest[conversationID]
	if !ok {
		return nil
	}
	id := d.ID // &d.ID would move every lookup's d to the heap, found or not
	return &emissionReceipt{EventTime: dates.Timestamp(*d.TransmittedOn), AuthenticxReceiptID: &id, CustomerReceiptID: d.CustomerReceiptID}
}

// emissionView is an organization's endpoint; its secret only when it is
// made.
type emissionView struct {
	URL       string          `json:"url"`
	Secret    string          `json:"secret,omitempty"`
	CreatedOn dates.Timestamp `json:"createdOn"`
}

// putEmission is PUT /Emission: the organization's endpoint, checked by
// the signed-URL guard; a new signing secret is made and shown once.
func (s *deliveryAPI) putEmission(c *gin.Context) error {
	body, err := readBody(c)
	if err != nil {
		return err
	}
	url := body.Required("url")
	if p := body.Problem(); p != nil {
		return p
	}
	ctx := c.Request.Context()
	if err := s.deps.SignedURLs.Check(ctx, *url); err != nil {
		return problem.Field("url", "cannot be used: "+signedurl.Reason(err)+".", "The endpoint URL cannot be used: "+signedurl.Reason(err)+".")
	}
	secret := make([]byte, 32)
	rand.Read(secret)
	ep, err := s.deps.Emissions.SetEndpoint(ctx, orgID(c), *url, "whsec_"+hex.EncodeToString(secret))
	if err != nil {
		return err
	}
	c.JSON(http.StatusOK, emissionView{URL: ep.URL, Secret: ep.Secret, CreatedOn: dates.Timestamp(ep.CreatedOn)})
	return nil
}

const noEndpoint = "Your organization has no emission endpoint; register one with PUT /Emission."

// getEmission is GET /Emission.
func (s *deliveryAPI) getEmission(c *gin.Context) error {
	ep, err := s.deps.Emissions.Endpoint(c.Request.Context(), orgID(c))
	if err != nil {
		return missing(err, noEndpoint)
	}
	c.JSON(http.StatusOK, emissionView{URL: ep.URL, CreatedOn: dates.Timestamp(ep.CreatedOn)})
	return nil
}

// deleteEmission is DELETE /Emission: deliveries stop, pending ones fail.
func (s *deliveryAPI) deleteEmission(c *gin.Context) error {
	if err := s.deps.Emissions.DeleteEndpoint(c.Request.Context(), orgID(c)); err != nil {
		return missing(err, noEndpoint)
	}
	c.Status(http.StatusNoContent)
	return nil
}

// receiptView is a delivery as GET /Receipts lists it: the vendor's
// fields (its description names them), then Earshot's [extension].
type receiptView struct {
	ConversationID          string           `json:"conversationId"`
	DateTimeReceived        dates.Timestamp  `json:"dateTimeReceived"`
	ClientCallID            *string          `json:"clientCallId"`
	DateTimeTransmitted     *dates.Timestamp `json:"dateTimeTransmitted"`
	ReceiptID               *string          `json:"receiptId"` // the endpoint's acknowledgement id
	SafetyEvent             *string          `json:"safetyEvent"`
	AdverseEvent            *string          `json:"adverseEvent"`
	ProductQualityComplaint *string          `json:"productQualityComplaint"`
	UID                     *string          `json:"uid"`
	DeliveryID              string           `json:"deliveryId"` // the cursor (LastId)
	EventType               string           `json:"eventType"`
	EventTime               dates.Timestamp  `json:"eventTime"`
	Status                  string           `json:"status"` // Pending | Delivered | Failed
	Attempts                int              `json:"attempts"`
	LastError               *string          `json:"lastError"`
}

// receiptClassifiers are the vendor's three export classifications, each
// answered by the organization's classifier of that name, if any.
var receiptClassifiers = []string{"Safety Event", "Adverse Event", "Product Quality Complaint"}

// Page sizes of GET /Receipts (the vendor's).
const receiptsDefaultPageSize = 10

// listReceipts is GET /Receipts: deliveries of conversations of a status,
// in a window on their arrival or on their evaluations' submission, by
// delivery id.
func (s *deliveryAPI) listReceipts(c *gin.Context) error {
	get := queryParams(c)
	errs := fieldErrors{}
	var f catalog.ReceiptFilter
	f.ByEvaluation = errs.choice(get, "DateReference", "ArrivalDate", "EvaluationCompleteDate") == "EvaluationCompleteDate"
	if from, to := errs.window(get); from != nil {
		f.From, f.To = *from, *to
	}
	if v, _ := get("Status"); v == "" {
		errs.add("Status", "is required: Sampled, ReadyToSample, Processing or FailedToProcess.")
	}
	f.Status = errs.choice(get, "Status", catalog.StatusSampled, catalog.StatusReadyToSample, catalog.StatusProcessing, catalog.StatusFailedToProcess)
	f.Limit = errs.boundedPageSize(get, "PageSize", receiptsDefaultPageSize, maxPageSize)
	f.AfterID = errs.guid(get, "LastId")
	ctx, org := c.Request.Context(), orgID(c)
	var err error
	if f.NodeIDs, f.Scope, err = s.visibleNodes(ctx, org, errs, "", nil, "HierarchyCodes", csv(get("HierarchyCodes"))); err != nil {
		return err
	}
	if p := errs.problem(); p != nil {
		return p
	}
	deliveries, err := s.deps.Emissions.Receipts(ctx, org, f)
	if err != nil {
		return err
	}
	if len(deliveries) == 0 {
		return problem.New(http.StatusNotFound, "No receipt matches these filters in this date range.")
	}
	items, err := s.receiptViews(ctx, org, deliveries)
	if err != nil {
		return err
	}
	c.JSON(http.StatusOK, items)
	return nil
}

// receiptViews lays out deliveries with their conversations' arrival,
// client call id and the three export classifications.
func (s *deliveryAPI) receiptViews(ctx context.Context, org string, deliveries []catalog.Delivery) ([]receiptView, error) {
	var ids []string
	for _, d := range deliveries {
		ids = append(ids, d.ConversationID)
	}
	records, err := s.deps.Interactions.Interactions(ctx, org, catalog.InteractionFilter{IDs: ids, ExactIDs: true, Limit: len(ids)})
	if err != nil {
		return nil, err
	}
	byID := map[string]catalog.Interaction{}
	var convs []results.Conversation
	for _, it := range records {
		byID[it.ID] = it
		if it.LakeRunID != nil {
			convs = append(convs, results.ConversationOf(it))
		}
	}
	all, err := s.activeModels(ctx, org)
	if err != nil {
		return nil, err
	}
	named := map[string]string{} // export classification → classifier id
	models := modelSet{fields: all.fields}
	for _, id := range all.IDs {
		for _, want := range receiptClassifiers {
			if sameName(all.fields[id].ModelName, want) && named[want] == "" {
				named[want] = id
				models.name(id)
			}
		}
	}
	current := map[string]modelResultsItem{}
	if len(models.IDs) > 0 && len(convs) > 0 {
		found, err := s.reviews.Read(ctx, org, models.Models, convs)
		if err != nil {
			return nil, err
		}
		for _, cv := range convs {
			current[cv.ID] = processedItem(cv, models, found.Machine[cv.ID], found.Reviews[cv.ID])
		}
	}
	public, err := s.publicIDs(ctx, org, ids)
	if err != nil {
		return nil, err
	}
	out := make([]receiptView, 0, len(deliveries))
	for _, d := range deliveries {
		it := byID[d.ConversationID]
		v := receiptView{ConversationID: public(d.ConversationID), DateTimeReceived: dates.Timestamp(it.ArrivedOn), ClientCallID: it.ClientCallID,
			ReceiptID: d.CustomerReceiptID, UID: d.UID, DeliveryID: d.ID, EventType: d.EventType, EventTime: dates.Timestamp(d.EventTime),
			Status: d.Status, Attempts: d.Attempts, LastError: d.LastError}
		if d.TransmittedOn != nil {
			v.DateTimeTransmitted = stampOf(*d.TransmittedOn)
		}
		item, ok := current[d.ConversationID]
		for want, field := range map[string]**string{"Safety Event": &v.SafetyEvent, "Adverse Event": &v.AdverseEvent,
			"Product Quality Complaint": &v.ProductQualityComplaint} {
			if ok && named[want] != "" {
				*field = resultText(item, named[want])
			}
		}
		out = append(out, v)
	}
	return out, nil
}

// resultText is an item's current result of a classifier as text
// ("true", "false" or the label), nil when it has none.
func resultText(item modelResultsItem, classifierID string) *string {
	for _, r := range *item.ModelResults {
		if r.ModelID != classifierID {
			continue
		}
		if r.Result != nil {
			text := strconv.FormatBool(*r.Result)
			return &text
		}
		return r.TextResult
	}
	return nil
}

// sameName tells whether a classifier's name is want, ignoring casing,
// spaces, punctuation and a leading "ML-" (the vendor's model names).
func sameName(name, want string) bool {
	return letters(name) == letters(want) || letters(name) == "ml"+letters(want)
}

func letters(s string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(s) {
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' {
			b.WriteRune(r)
		}
	}
	return b.String()
}

// ResultItems gives the emit job each conversation's /ModelResults item
// (every active classifier, the latest set first as the API shows it),
// built by the API's own code from the services in d.
func ResultItems(d Deps) func(ctx context.Context, org, conversationID string) ([]byte, error) {
	s := newShared(d, Options{})
	return func(ctx context.Context, org, conversationID string) ([]byte, error) {
		it, err := d.Interactions.Interaction(ctx, org, conversationID)
		if err != nil {
			return nil, err
		}
		if it.LakeRunID == nil {
			return nil, errNotProcessed
		}
		models, err := s.activeModels(ctx, org)
		if err != nil {
			return nil, err
		}
		cv := results.ConversationOf(it)
		found, err := s.reviews.Read(ctx, org, models.Models, []results.Conversation{cv})
		if err != nil {
			return nil, err
		}
		item := processedItem(cv, models, found.Machine[it.ID], found.Reviews[it.ID])
		item.ID, item.ConversationID = it.Public(), it.Public()
		return item.appendJSON(nil), nil
	}
}

// errNotProcessed: a delivery's conversation is being processed again.
var errNotProcessed = errors.New("the conversation is being processed again; its results follow")
