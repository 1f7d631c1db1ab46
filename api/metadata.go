package api

import (
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"

	"github.com/gin-gonic/gin"
	"github.com/google/uuid"

	"github.com/earshot/earshot/api/problem"
	"github.com/earshot/earshot/api/reqbody"
	"github.com/earshot/earshot/internal/app/access"
	"github.com/earshot/earshot/internal/contract/dates"
	"github.com/earshot/earshot/internal/contract/uploadmeta"
	"github.com/earshot/earshot/warehouse/catalog"
)

// metadataItem is an interaction as GET /Metadata shapes it (CONTRACT §4).
type metadataItem struct {
	ID                            string            `json:"id"`
	OrganizationID                string            `json:"organizationId"`
	OrganizationStructureMemberID *string           `json:"organizationStructureMemberId"`
	FileName                      string            `json:"fileName"`
	OrigFileName                  *string           `json:"origFileName"`
	UploadedFileName              *string           `json:"uploadedFileName"`
	FileSizeKiloBytes             int64             `json:"fileSizeKiloBytes"`
	MediaType                     string            `json:"mediaType"`
	Status                        string            `json:"status"`
	Timestamp                     dates.Timestamp   `json:"timestamp"`
	ArrivedOn                     dates.Timestamp   `json:"arrivedOn"`
	AgentID                       *string           `json:"agentId"`
	AgentName                     *string           `json:"agentName"`
	AgentCode                     *string           `json:"agentCode"`
	Phone                         *string           `json:"phone"`
	ClientCallID                  *string           `json:"clientCallId"`
	CallDirection                 *string           `json:"callDirection"`
	CallDurationMillis            int64             `json:"callDurationMillis"` // non-nullable in the vendor's document: 0 when unknown
	ChatMessageCount              *int              `json:"chatMessageCount"`
	LocaleID                      int               `json:"localeId"`
	ExtendedMetadataValues        map[string]string `json:"extendedMetadataValues"`
	ProcessFailures               []failureView     `json:"processFailures"`
	UploadID                      *string           `json:"uploadId"`
}

type failureView struct {
	ID        string          `json:"id"`
	Message   string          `json:"message"`
	CreatedOn dates.Timestamp `json:"createdOn"`
}

func newMetadataItem(it catalog.Interaction) metadataItem {
	ts := it.ArrivedOn
	if it.InteractionDate != nil {
		ts = *it.InteractionDate
	}
	var agentName *string
	if name := strings.TrimSpace(deref(it.AgentFirstName) + " " + deref(it.AgentLastName)); name != "" {
		agentName = &name
	}
	failures := []failureView{}
	for _, f := range it.ProcessFailures {
		failures = append(failures, failureView{ID: f.ID, Message: f.Message, CreatedOn: dates.Timestamp(f.CreatedOn)})
	}
	return metadataItem{
		ID: it.Public(), OrganizationID: it.OrgID, OrganizationStructureMemberID: it.HierarchyNodeID, FileName: it.FileName,
		OrigFileName: it.OrigFileName, UploadedFileName: it.StagedKey, FileSizeKiloBytes: (it.FileSizeBytes + 1023) / 1024,
		MediaType: it.MediaType, Status: it.Status, Timestamp: dates.Timestamp(ts), ArrivedOn: dates.Timestamp(it.ArrivedOn),
		AgentID: it.AgentID, AgentName: agentName, AgentCode: it.AgentCode, Phone: it.Phone, ClientCallID: it.ClientCallID,
		CallDirection: it.CallDirection, CallDurationMillis: deref(it.CallDurationMillis), ChatMessageCount: it.ChatMessageCount,
		LocaleID: it.LocaleID, ExtendedMetadataValues: it.ExtendedMetadata, ProcessFailures: failures, UploadID: it.UploadID,
	}
}

// deref is what p points to, or T's zero value.
func deref[T any](p *T) T {
	if p == nil {
		var zero T
		return zero
	}
	return *p
}

// metadataFilters are the filters of GET and POST /Metadata, as text.
type metadataFilters struct {
	startDate, endDate, mediaType, status, lastID, pageSize string
	clientCallIDs, hierarchyIDs, ids                        []string
}

// maxListValues is the most values a list filter of /Metadata takes.
const maxListValues = 100

var listLimitMessage = fmt.Sprintf("must list at most %d values.", maxListValues)

var (
	mediaTypes = []string{catalog.MediaAudio, catalog.MediaChat, catalog.MediaProcessedChat}
	// vendorOnlyMediaTypes are the vendor's other media types: valid
	// filters that Earshot never stores, so they match nothing.
	vendorOnlyMediaTypes = []string{"Email", "Video", "Live", "Metadata", "MetadataExtended"}
	statuses             = []string{catalog.StatusProcessing, catalog.StatusReadyToSample, catalog.StatusSampled, catalog.StatusFailedToProcess}
)

// metadataFilter checks the filters and turns them into a catalog filter,
// naming every bad parameter in one 400.
func (s *conversationsAPI) metadataFilter(c *gin.Context, f metadataFilters) (catalog.InteractionFilter, *problem.Problem) {
	errs := fieldErrors{}
	out := catalog.InteractionFilter{Limit: defaultPageSize}
	if f.startDate != "" {
		t, err := dates.Parse(f.startDate)
		if err != nil {
			errs.add("StartDate", "must be a date such as "+dates.Accepted+".")
		}
		out.ArrivedFrom = &t
	}
	if f.endDate != "" {
		t, err := dates.ParseEnd(f.endDate)
		if err != nil {
			errs.add("EndDate", "must be a date such as "+dates.Accepted+".")
		}
		out.ArrivedTo = &t
	}
	if out.ArrivedFrom != nil && out.ArrivedTo != nil && len(errs) == 0 && out.ArrivedTo.Before(*out.ArrivedFrom) {
		errs.add("EndDate", "must not be before StartDate.")
	}
	if f.mediaType != "" {
		allowed := slices.Concat(mediaTypes, vendorOnlyMediaTypes)
		if out.MediaType = oneOf(f.mediaType, allowed); out.MediaType == "" {
			errs.add("MediaType", "must be one of "+strings.Join(allowed, ", ")+".")
		}
	}
	if f.status != "" {
		if out.Status = oneOf(f.status, statuses); out.Status == "" {
			errs.add("Status", "must be one of "+strings.Join(statuses, ", ")+".")
		}
	}
	if f.pageSize != "" {
		out.Limit = errs.pageSize(func(string) (string, bool) { return f.pageSize, true }, "PageSize")
	}
	if f.lastID != "" {
		if id, err := uuid.Parse(f.lastID); err != nil {
			errs.add("LastId", "must be a GUID.")
		} else {
			out.AfterID = id.String()
		}
	}
	if f.clientCallIDs != nil {
		if len(f.clientCallIDs) > maxListValues {
			errs.add("ClientCallId", listLimitMessage)
		}
		out.ClientCallIDs = f.clientCallIDs
	}
	for _, list := range []struct {
		name string
		in   []string
		dst  *[]string
	}{{"Id", f.ids, &out.IDs}, {"HierarchyIds", f.hierarchyIDs, &out.NodeIDs}} {
		if list.in == nil {
			continue
		}
		if len(list.in) > maxListValues {
			errs.add(list.name, listLimitMessage)
		}
		*list.dst = []string{}
		for _, v := range list.in {
			id, err := uuid.Parse(v)
			if err != nil {
				errs.add(list.name, "must be GUIDs separated by commas.")
				break
			}
			*list.dst = append(*list.dst, id.String())
		}
	}
	if len(errs) > 0 {
		return out, problem.Invalid(errs)
	}
	// Ids and the cursor may be ids clients chose (publicids.go).
	var err error
	if out.AfterID, err = s.internalID(c.Request.Context(), orgID(c), out.AfterID); err != nil {
		return out, s.internal(c, err)
	}
	if out.IDs != nil {
		if out.IDs, err = s.internalIDs(c.Request.Context(), orgID(c), out.IDs); err != nil {
			return out, s.internal(c, err)
		}
	}
	if out.NodeIDs != nil {
		tree, err := s.deps.People.Hierarchy(c.Request.Context(), orgID(c))
		if err != nil {
			return out, s.internal(c, err)
		}
		var nodes []string
		for _, id := range out.NodeIDs {
			if _, ok := tree.Node(id); !ok {
				return out, problem.Field("HierarchyIds", "names a node your organization does not have.", uploadmeta.SentenceHierarchy)
			}
			nodes = append(nodes, tree.Descendants(id)...) // a node stands for its subtree
		}
		out.NodeIDs = nodes
	}
	return out, nil
}

// getMetadata is GET /Metadata.
func (s *conversationsAPI) getMetadata(c *gin.Context) error {
	q := func(name string) string { v, _ := query(c, name); return v }
	f := metadataFilters{
		startDate: q("StartDate"), endDate: q("EndDate"), mediaType: q("MediaType"), status: q("Status"),
		lastID: q("LastId"), pageSize: q("PageSize"),
		clientCallIDs: csv(query(c, "ClientCallId")), hierarchyIDs: csv(query(c, "HierarchyIds")), ids: csv(query(c, "Id")),
	}
	return s.answerMetadata(c, f)
}

// postMetadata is POST /Metadata: the same filters as a JSON body, with
// startDate, endDate and pageSize required. Lists may be arrays or CSV.
func (s *conversationsAPI) postMetadata(c *gin.Context) error {
	problem.NameFieldsAsBody(c)
	body, err := readBody(c)
	if err != nil {
		return err
	}
	text := func(k string) string {
		if v := body.String(k); v != nil {
			return *v
		}
		return ""
	}
	list := func(k string) []string {
		switch body.Kind(k) {
		case "":
			return nil
		case "string":
			if v := body.String(k); v != nil { // nil: too long, failed
				return csv(*v, true)
			}
			return nil
		}
		if v := body.Strings(k); v != nil {
			return listed(*v)
		}
		return nil
	}
	// The vendor's document names the body's list clientCallIds; the
	// query's name, clientCallId, is taken too.
	clientCallIDs := list("clientCallIds")
	if clientCallIDs == nil {
		clientCallIDs = list("clientCallId")
	}
	f := metadataFilters{
		startDate: text("startDate"), endDate: text("endDate"), mediaType: text("mediaType"), status: text("status"),
		lastID: text("lastId"), pageSize: numberText(body, "pageSize"),
		clientCallIDs: clientCallIDs, hierarchyIDs: list("hierarchyIds"), ids: list("id"),
	}
	for k, v := range map[string]string{"startDate": f.startDate, "endDate": f.endDate, "pageSize": f.pageSize} {
		if v == "" {
			body.Fail(k, "is required.")
		}
	}
	if p := body.Problem(); p != nil {
		return p
	}
	return s.answerMetadata(c, f)
}

// numberText reads a number or numeric string as text.
func numberText(body *reqbody.Object, k string) string {
	switch body.Kind(k) {
	case "string":
		if v := body.String(k); v != nil { // nil: too long, failed
			return *v
		}
	case "number":
		var n json.Number
		if body.Decode(k, &n) {
			return n.String()
		}
	case "":
	default:
		body.Fail(k, "must be a number.")
	}
	return ""
}

func (s *conversationsAPI) answerMetadata(c *gin.Context, f metadataFilters) error {
	filter, p := s.metadataFilter(c, f)
	if p != nil {
		return p
	}
	filter.Scope = reads(c.Request.Context())
	list, err := s.deps.Interactions.Interactions(c.Request.Context(), orgID(c), filter)
	if err != nil {
		return err
	}
	writeViews(c, list, newMetadataItem)
	return nil
}

// patchMetadata is PATCH /Metadata/{id}.
func (s *conversationsAPI) patchMetadata(c *gin.Context) error {
	id, body, err := readUpdate(c)
	if err != nil {
		return err
	}
	var p catalog.InteractionPatch
	p.InteractionDate = body.Date("timestamp")
	p.Phone = body.String("phone")
	p.ClientCallID = body.String("clientCallId")
	if d := body.String("callDirection"); d != nil {
		if v := oneOf(*d, []string{"Inbound", "Outbound"}); v != "" {
			p.CallDirection = &v
		} else {
			body.Fail("callDirection", "must be Inbound or Outbound.")
		}
	}
	if body.Has("localeId") {
		n, err := strconv.Atoi(numberText(body, "localeId"))
		if err != nil || (n != uploadmeta.LocaleEnglish && n != uploadmeta.LocaleSpanish) {
			body.Fail("localeId", uploadmeta.SentenceLocale)
		} else {
			p.LocaleID = &n
		}
	}
	p.Extended = body.ScalarMap("extendedMetadata")
	if pr := body.Problem(); pr != nil {
		return pr
	}
	ctx, org := c.Request.Context(), orgID(c)
	id, err = s.internalID(ctx, org, id)
	if err != nil {
		return err
	}
	if actor := actorOf(ctx); actor.IsUser() { // a user changes only what its access on the conversation's node allows
		it, err := s.deps.Interactions.Interaction(ctx, org, id)
		if err == nil {
			err = actor.RequireOn(access.EditConversations, it.MediaType, it.HierarchyNodeID)
		}
		if err != nil {
			return missing(err, "No interaction with this id exists in your organization.")
		}
	}
	it, err := s.deps.Interactions.PatchInteraction(ctx, org, id, p)
	if err != nil {
		return missing(err, "No interaction with this id exists in your organization.")
	}
	c.JSON(http.StatusOK, newMetadataItem(it))
	return nil
}
