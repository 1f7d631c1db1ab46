package api

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/earshot/earshot/internal/signedurl"
	"github.com/earshot/earshot/jobs"
	"github.com/earshot/earshot/warehouse/catalog"
)

// endpoint is an organization's HTTPS endpoint in a test: it checks each
// delivery's signature and records it, and answers what the test says.
type endpoint struct {
	t      *testing.T
	mu     sync.Mutex
	secret string
	answer func(attempt int) (int, string)
	got    []delivered
}

type delivered struct {
	id, event string
	item      map[string]any
}

func (ep *endpoint) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	ep.mu.Lock()
	defer ep.mu.Unlock()
	body, _ := io.ReadAll(r.Body)
	sig := r.Header.Get(jobs.SignatureHeader)
	var ts int64
	for _, part := range strings.Split(sig, ",") {
		if v, ok := strings.CutPrefix(part, "t="); ok {
			json.Unmarshal([]byte(v), &ts)
		}
	}
	if want := jobs.Sign(ep.secret, time.Unix(ts, 0), body); sig != want || time.Since(time.Unix(ts, 0)) > time.Minute {
		ep.t.Errorf("signature %q, want %q", sig, want)
		w.WriteHeader(http.StatusUnauthorized)
		return
	}
	var item map[string]any
	if err := json.Unmarshal(body, &item); err != nil {
		ep.t.Errorf("not a JSON item: %s", body)
	}
	ep.got = append(ep.got, delivered{id: r.Header.Get(jobs.DeliveryHeader), event: r.Header.Get(jobs.EventHeader), item: item})
	code, answer := ep.answer(len(ep.got))
	w.WriteHeader(code)
	io.WriteString(w, answer)
}

// Result sets are delivered to the organization's HTTPS endpoint, signed;
// a failed attempt is retried with the same delivery id; the endpoint's
// acknowledgement becomes the receipt on /ModelResults and in /Receipts;
// a delivery the endpoint keeps refusing fails after the last attempt.
func TestEmissionDeliveredRetriedAndReceipted(t *testing.T) {
	t.Parallel()
	ep := &endpoint{t: t}
	server := httptest.NewTLSServer(ep)
	defer server.Close()
	loopback := netip.MustParseAddrPort(strings.TrimPrefix(server.URL, "https://")).Addr()
	guard := signedurl.New(signedurl.Options{Allow: []netip.Prefix{netip.PrefixFrom(loopback, 32)},
		TLS: server.Client().Transport.(*http.Transport).TLSClientConfig})
	e := newTestEnv(t, Options{}, func(d *Deps) { d.SignedURLs = guard })
	tok := e.token(t)
	model := mustStatus(t, e.jsonReq("POST", "/Conversations/Classifiers", tok, classifierBody("Safety Event", "Classifier", "Process",
		`{"groups":[{"rules":[{"phrases":["dizzy"]}]}]}`)), http.StatusCreated).id(t)

	// The URL passes the signed-URL guard; the secret is shown once.
	for _, bad := range []string{"http://example.com/hook", "https://10.0.0.1/hook", "https://169.254.169.254/latest", "hook"} {
		r := mustStatus(t, e.jsonReq("PUT", "/Emission", tok, map[string]any{"url": bad}), 400)
		if errs, _ := r.json(t)["errors"].(map[string]any); errs["url"] == nil {
			t.Errorf("%s: %s", bad, r.Body)
		}
	}
	mustStatus(t, e.jsonReq("GET", "/Emission", tok, nil), 404)
	r := mustStatus(t, e.jsonReq("PUT", "/Emission", tok, map[string]any{"url": server.URL + "/hook"}), 200)
	ep.secret, _ = r.json(t)["secret"].(string)
	if !strings.HasPrefix(ep.secret, "whsec_") {
		t.Fatalf("no secret: %s", r.Body)
	}
	if v := mustStatus(t, e.jsonReq("GET", "/Emission", tok, nil), 200).json(t); v["url"] != server.URL+"/hook" || v["secret"] != nil {
		t.Fatalf("endpoint: %v", v)
	}

	conv := mustStatus(t, e.upload("/TextMedia/Upload", tok, meta("ClientCallId", "call-9"),
		file("c.json", `{"messages":[{"participant":"Customer","text":"The new pills make me dizzy."}]}`)), 200).id(t)
	e.runIngest(t)

	// The job's clock runs ahead of the real one by the waits the test
	// passes over.
	var ahead time.Duration
	job := &jobs.Emit{Queue: e.cat.Emissions, Post: guard, Item: ResultItems(e.srv.deps), Owner: "test",
		RetryBase: 500 * time.Millisecond, MaxAttempts: 3, Log: slog.New(slog.NewTextHandler(io.Discard, nil)),
		Now: func() time.Time { return time.Now().Add(ahead) }}
	// A retry waits 500 ms, then 1 s: within a run nothing is due again,
	// after the wait it is.
	emit := func(wait time.Duration) map[string]int64 {
		t.Helper()
		ahead += wait
		counts, err := job.Run(context.Background(), catalog.JobRun{})
		if err != nil {
			t.Fatal(err)
		}
		return counts
	}
	ep.answer = func(attempt int) (int, string) {
		if attempt == 1 {
			return http.StatusInternalServerError, "down for maintenance"
		}
		return http.StatusOK, `{"receiptId":"R-1","uid":"U-1"}`
	}
	if c := emit(0); c["enqueued"] != 1 || c["retried"] != 1 || c["delivered"] != 0 {
		t.Fatalf("first run: %v", c)
	}
	if c := emit(0); c["delivered"]+c["retried"] != 0 {
		t.Fatalf("a run before the retry is due: %v", c)
	}
	if c := emit(600 * time.Millisecond); c["enqueued"] != 0 || c["delivered"] != 1 {
		t.Fatalf("second run: %v", c)
	}
	if len(ep.got) != 2 || ep.got[0].id != ep.got[1].id || ep.got[1].event != "ModelResults" || ep.got[1].item["conversationId"] != conv {
		t.Fatalf("attempts: %+v", ep.got)
	}
	if results, _ := ep.got[1].item["modelResults"].([]any); len(results) != 1 || results[0].(map[string]any)["result"] != true {
		t.Errorf("the delivered item's results: %v", ep.got[1].item)
	}
	delivery := ep.got[0].id

	// The receipt, on the /ModelResults item and in /Receipts.
	var items []struct {
		ConversationID  string
		EmissionReceipt *struct{ EventTime, AuthenticxReceiptID, CustomerReceiptID string }
	}
	json.Unmarshal(mustStatus(t, e.jsonReq("GET", "/ModelResults?modelIds="+model, tok, nil), 200).Body.Bytes(), &items)
	if len(items) != 1 || items[0].EmissionReceipt == nil || items[0].EmissionReceipt.CustomerReceiptID != "R-1" ||
		items[0].EmissionReceipt.AuthenticxReceiptID != delivery {
		t.Fatalf("/ModelResults: %+v", items)
	}
	today := time.Now().UTC().Format(time.DateOnly)
	receipts := func(query string) []map[string]any {
		t.Helper()
		var out []map[string]any
		json.Unmarshal(mustStatus(t, e.jsonReq("GET", "/Receipts?StartDate="+today+"&EndDate="+today+query, tok, nil), 200).Body.Bytes(), &out)
		return out
	}
	got := receipts("&Status=ReadyToSample")
	if len(got) != 1 || got[0]["receiptId"] != "R-1" || got[0]["uid"] != "U-1" || got[0]["deliveryId"] != delivery || got[0]["attempts"] != float64(2) ||
		got[0]["status"] != "Delivered" || got[0]["clientCallId"] != "call-9" || got[0]["safetyEvent"] != "true" || got[0]["adverseEvent"] != nil {
		t.Fatalf("receipts: %v", got)
	}

	// A review is a new result set; the endpoint now refuses for good.
	ep.answer = func(int) (int, string) { return http.StatusServiceUnavailable, "" }
	mustStatus(t, e.jsonReq("POST", "/ModelResults/Reviews", tok, map[string]any{"conversationId": conv, "eventType": "HumanReview",
		"reviewer": "qa", "modelResults": []map[string]any{{"modelId": model, "result": false}}}), 200)
	for _, wait := range []time.Duration{0, 600 * time.Millisecond, 1100 * time.Millisecond} {
		emit(wait)
	}
	if last := ep.got[len(ep.got)-1]; len(ep.got) != 5 || last.event != "HumanReview" {
		t.Fatalf("review deliveries: %d, last %+v", len(ep.got), last)
	}
	got = receipts("&Status=ReadyToSample&LastId=" + delivery)
	if len(got) != 1 || got[0]["status"] != "Failed" || got[0]["attempts"] != float64(3) || !strings.Contains(got[0]["lastError"].(string), "503") {
		t.Fatalf("the refused delivery: %v", got)
	}
	if c := emit(0); c["enqueued"] != 0 || c["delivered"]+c["retried"]+c["failed"] != 0 {
		t.Errorf("a run with nothing new: %v", c)
	}

	// Filters and mistakes; another organization sees nothing.
	mustStatus(t, e.jsonReq("GET", "/Receipts?StartDate="+today+"&EndDate="+today+"&Status=Sampled", tok, nil), 404)
	mustStatus(t, e.jsonReq("GET", "/Receipts?StartDate="+today+"&EndDate="+today+"&Status=ReadyToSample&DateReference=EvaluationCompleteDate", tok, nil), 404)
	for query, field := range map[string]string{"&EndDate=" + today + "&Status=Sampled": "StartDate", "&StartDate=" + today + "&EndDate=" + today: "Status",
		"&StartDate=" + today + "&EndDate=" + today + "&Status=Sampled&DateReference=Soon": "DateReference"} {
		r := mustStatus(t, e.jsonReq("GET", "/Receipts?"+query[1:], tok, nil), 400)
		if errs, _ := r.json(t)["errors"].(map[string]any); errs[field] == nil {
			t.Errorf("%s: %s", query, r.Body)
		}
	}
	orgB, _ := e.cat.Orgs.CreateOrganization(context.Background(), "globex")
	mustStatus(t, e.jsonReq("GET", "/Receipts?StartDate="+today+"&EndDate="+today+"&Status=ReadyToSample", e.orgToken(t, orgB.ID), nil), 404)
	mustStatus(t, e.jsonReq("DELETE", "/Emission", tok, nil), http.StatusNoContent)
	mustStatus(t, e.jsonReq("DELETE", "/Emission", tok, nil), 404)
}
