package api

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/earshot/earshot/api/oauth"
	"github.com/earshot/earshot/warehouse/catalog"
)

// seedInteractions writes records straight to the catalog, with arrival
// times spread over days, so the filters have something to tell apart.
func seedInteractions(t *testing.T, e *testEnv, node string) (ids []string, archive string) {
	t.Helper()
	ctx := context.Background()
	base := time.Date(2025, 10, 1, 12, 0, 0, 0, time.UTC)
	add := func(i int, media, status string, upload *string, callID string) string {
		id := catalog.NewID()
		it := catalog.Interaction{ID: id, OrgID: e.org.ID, MediaType: media, Status: status, FileName: fmt.Sprintf("f%02d.wav", i),
			ArrivedOn: base.Add(time.Duration(i) * 24 * time.Hour), LocaleID: 1033, Source: "file", ModifiedOn: base, UploadID: upload}
		if callID != "" {
			it.ClientCallID = &callID
		}
		if i%2 == 0 && node != "" {
			it.HierarchyNodeID = &node
		}
		if err := e.cat.Interactions.CreateInteraction(ctx, it, false); err != nil {
			t.Fatal(err)
		}
		time.Sleep(2 * time.Millisecond) // distinct UUIDv7 milliseconds keep id order = creation order
		return id
	}
	for i := range 6 {
		ids = append(ids, add(i, "Audio", []string{"Processing", "ReadyToSample", "FailedToProcess"}[i%3], nil, fmt.Sprintf("call-%d", i)))
	}
	archive = add(6, "Chat", "ReadyToSample", nil, "")
	ids = append(ids, archive)
	for i := 7; i < 9; i++ {
		ids = append(ids, add(i, "ProcessedChat", "ReadyToSample", &archive, ""))
	}
	return ids, archive
}

func idsOf(t *testing.T, r response) []string {
	t.Helper()
	var items []map[string]any
	if err := json.Unmarshal(r.Body.Bytes(), &items); err != nil {
		t.Fatalf("%d %s", r.Code, r.Body)
	}
	out := []string{}
	for _, it := range items {
		out = append(out, it["id"].(string))
	}
	return out
}

func TestMetadataFilters(t *testing.T) {
	t.Parallel()
	e := newTestEnv(t, Options{})
	tok := e.token(t)
	f := buildOrg(t, e, tok, "")
	ids, archive := seedInteractions(t, e, f.team)
	get := func(q string) []string {
		return idsOf(t, mustStatus(t, e.jsonReq("GET", "/Metadata"+q, tok, nil), 200))
	}
	cases := []struct {
		name, query string
		want        []string
	}{
		{"all", "", ids},
		{"start date", "?StartDate=2025-10-04", ids[3:]},
		{"start date with +00:00 unencoded (a space)", "?StartDate=2025-10-04T00:00:00+00:00", ids[3:]},
		{"start date with a space for the T and no seconds", "?StartDate=2025-10-04%2000:00", ids[3:]},
		{"date-only end is the whole day", "?startdate=2025-10-02&EndDate=2025-10-03", ids[1:3]},
		{"media type", "?MediaType=processedchat", ids[7:]},
		{"status", "?Status=FailedToProcess", []string{ids[2], ids[5]}},
		{"client call ids", "?ClientCallId=call-1,call-4,nope", []string{ids[1], ids[4]}},
		{"archive id brings its chats", "?Id=" + archive, ids[6:]},
		{"hierarchy: a node stands for its subtree", "?HierarchyIds=" + f.region, []string{ids[0], ids[2], ids[4], ids[6], ids[8]}},
		{"page", "?PageSize=3", ids[:3]},
		{"next page", "?PageSize=3&LastId=" + ids[2], ids[3:6]},
		// An empty list is no filter (CONTRACT §1).
		{"empty lists", "?HierarchyIds=&ClientCallId=&Id=&MediaType=", ids},
		{"a list of blanks", "?ClientCallId=,%20,", ids},
		// The vendor's other media types are valid filters: nothing has them.
		{"vendor media type Video", "?MediaType=Video", nil},
		{"vendor media type MetadataExtended", "?MediaType=metadataextended", nil},
		{"repeated client call ids", "?ClientCallId=call-1,call-1", []string{ids[1]}},
	}
	for _, c := range cases {
		if got := get(c.query); strings.Join(got, ",") != strings.Join(c.want, ",") {
			t.Errorf("%s: got %d items %v, want %v", c.name, len(got), got, c.want)
		}
	}
	for q, field := range map[string]string{
		"?StartDate=yesterday": "StartDate", "?StartDate=2025-10-05&EndDate=2025-10-04": "EndDate", "?MediaType=Fax": "MediaType",
		"?Status=Done": "Status", "?PageSize=0": "PageSize", "?PageSize=1001": "PageSize", "?LastId=x": "LastId",
		"?HierarchyIds=x": "HierarchyIds", "?HierarchyIds=" + uuid.NewString(): "HierarchyIds",
		"?ClientCallId=" + distinctValues(101): "ClientCallId",
	} {
		r := e.jsonReq("GET", "/Metadata"+q, tok, nil)
		if errs, _ := r.json(t)["errors"].(map[string]any); r.Code != 400 || errs[field] == nil {
			t.Errorf("%s: %d %s", q, r.Code, r.Body)
		}
	}

	// POST: the same filters as JSON; dates and pageSize required.
	// clientCallIds is the vendor's name of the list; clientCallId the query's.
	for _, key := range []string{"clientCallIds", "clientCallId"} {
		r := mustStatus(t, e.jsonReq("POST", "/Metadata", tok, map[string]any{"startDate": "2025-10-01", "endDate": "2025-10-09", "pageSize": 2, "mediaType": "Audio", key: []string{"call-0", "call-3"}}), 200)
		if got := idsOf(t, r); strings.Join(got, ",") != ids[0]+","+ids[3] {
			t.Errorf("POST /Metadata with %s: %v", key, got)
		}
	}
	r := mustStatus(t, e.jsonReq("POST", "/Metadata", tok, map[string]any{"startDate": "2025-10-01", "endDate": "2025-10-09", "pageSize": 100,
		"clientCallIds": []string{}, "hierarchyIds": []string{}}), 200)
	if got := idsOf(t, r); len(got) != len(ids) {
		t.Errorf("POST /Metadata with empty lists: %d items, want %d", len(got), len(ids))
	}
	r = e.jsonReq("POST", "/Metadata", tok, map[string]any{"startDate": "2025-10-01"})
	if errs, _ := r.json(t)["errors"].(map[string]any); r.Code != 400 || errs["endDate"] == nil || errs["pageSize"] == nil {
		t.Errorf("POST /Metadata without required fields: %d %s", r.Code, r.Body)
	}
	// The body's checks are the query's, named as the body names them.
	r = e.jsonReq("POST", "/Metadata", tok, map[string]any{"startDate": "2025-10-05", "endDate": "2025-10-04", "pageSize": 5, "mediaType": "Fax"})
	if errs, _ := r.json(t)["errors"].(map[string]any); r.Code != 400 || errs["endDate"] == nil || errs["mediaType"] == nil || errs["EndDate"] != nil ||
		r.json(t)["detail"] != "The request has invalid or missing fields: endDate, mediaType. See errors for each." {
		t.Errorf("POST /Metadata with bad filters: %d %s", r.Code, r.Body)
	}
}

func TestMetadataPatch(t *testing.T) {
	t.Parallel()
	e := newTestEnv(t, Options{})
	tok := e.token(t)
	r := mustStatus(t, e.upload("/Media/Upload", tok, meta("FileName", "p.wav", "UploadType", "Audio", "ExtendedMetadataValues", map[string]any{"queue": "a", "keep": "me"}), file("p.wav", wavBytes)), 200)
	id := r.json(t)["id"].(string)
	r = mustStatus(t, e.jsonReq("PATCH", "/Metadata/"+id, tok, map[string]any{
		"timestamp": "2025-10-03T21:52:26Z", "phone": "+1 555 0101", "callDirection": "inbound", "clientCallId": "c-9", "localeId": 2058,
		"extendedMetadata": map[string]any{"queue": "b", "score": 7}}), 200)
	item := r.json(t)
	ext := item["extendedMetadataValues"].(map[string]any)
	if item["timestamp"] != "2025-10-03T21:52:26.000Z" || item["callDirection"] != "Inbound" || item["localeId"] != float64(2058) ||
		ext["queue"] != "b" || ext["keep"] != "me" || ext["score"] != "7" {
		t.Fatalf("patched item %v", item)
	}
	for name, body := range map[string]map[string]any{
		"locale":    {"localeId": 1036},
		"direction": {"callDirection": "Up"},
		"date":      {"timestamp": "noon"},
		"extended":  {"extendedMetadata": map[string]any{"a": []int{1}}},
	} {
		if r := e.jsonReq("PATCH", "/Metadata/"+id, tok, body); r.Code != 400 {
			t.Errorf("%s: %d %s", name, r.Code, r.Body)
		}
	}

	// Another organization's id answers like an unknown one.
	other, _ := e.cat.Orgs.CreateOrganization(context.Background(), "globex")
	otherTok, _ := e.tokens.IssueForOperator(other.ID, oauth.Scope)
	foreign := e.jsonReq("PATCH", "/Metadata/"+id, otherTok, map[string]any{"phone": "x"})
	unknown := e.jsonReq("PATCH", "/Metadata/"+uuid.NewString(), otherTok, map[string]any{"phone": "x"})
	if foreign.Code != 404 || traceID.ReplaceAllString(foreign.Body.String(), "") != traceID.ReplaceAllString(unknown.Body.String(), "") {
		t.Fatalf("foreign id: %d %s vs %s", foreign.Code, foreign.Body, unknown.Body)
	}
	if got := idsOf(t, e.jsonReq("GET", "/Metadata?Id="+id, otherTok, nil)); len(got) != 0 {
		t.Fatalf("another organization sees the record: %v", got)
	}
	if r := e.upload("/Media/Upload", otherTok, meta("FileName", "p.wav", "UploadType", "Audio"), file("p.wav", wavBytes)); r.Code != 200 {
		t.Fatalf("a file name is per organization: %d %s", r.Code, r.Body)
	}
}

// distinctValues is a CSV of n different values.
func distinctValues(n int) string {
	var out []string
	for i := range n {
		out = append(out, fmt.Sprintf("v%d", i))
	}
	return strings.Join(out, ",")
}
