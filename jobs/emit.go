package jobs

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/earshot/earshot/internal/signedurl"
	"github.com/earshot/earshot/warehouse/catalog"
)

// EmissionQueue is what the emit job needs of the catalog
// (catalog.EmissionStore).
type EmissionQueue interface {
	Endpoints(ctx context.Context) ([]catalog.EmissionEndpoint, error)
	Discover(ctx context.Context, ep catalog.EmissionEndpoint) (int64, error)
	ClaimDeliveries(ctx context.Context, owner string, limit int, lease time.Duration, at time.Time) ([]catalog.Delivery, error)
	RecordAttempt(ctx context.Context, d catalog.Delivery, o catalog.DeliveryOutcome) error
}

// Poster posts to an organization's endpoint under the SSRF guard
// (signedurl.Fetcher).
type Poster interface {
	Post(ctx context.Context, rawURL string, body []byte, header http.Header) (*http.Response, error)
}

// Headers of a delivery.
const (
	// DeliveryHeader carries the delivery's id: the same on every attempt,
	// so an endpoint that got it twice keeps it once.
	DeliveryHeader = "X-Earshot-Delivery"
	// EventHeader names the result set: ModelResults, HumanReview or
	// QualityControl.
	EventHeader = "X-Earshot-Event"
	// SignatureHeader is t=<unix seconds>,v1=<hex HMAC-SHA256 of "t.body">
	// with the endpoint's secret: an endpoint checks it and refuses old
	// timestamps, so a captured delivery cannot be replayed later.
	SignatureHeader = "X-Earshot-Signature"
)

// Sign is the signature header of a body sent at t.
func Sign(secret string, t time.Time, body []byte) string {
	ts := strconv.FormatInt(t.Unix(), 10)
	mac := hmac.New(sha256.New, []byte(secret))
	mac.Write([]byte(ts + "."))
	mac.Write(body)
	return "t=" + ts + ",v1=" + hex.EncodeToString(mac.Sum(nil))
}

// Emit is the emit job: it finds every organization's new result sets
// (a conversation's machine results, a review), and delivers each to the
// organization's endpoint as the conversation's /ModelResults item,
// signed, until the endpoint acknowledges it with a 2xx; failures are
// retried with exponential backoff, up to MaxAttempts.
type Emit struct {
	Queue EmissionQueue
	Post  Poster
	// Item is the conversation's /ModelResults item (api.ResultItems).
	Item        func(ctx context.Context, org, conversationID string) ([]byte, error)
	Owner       string
	Batch       int           // deliveries claimed at a time; default 50
	Lease       time.Duration // how long a claim holds; default 5 minutes
	RetryBase   time.Duration // the first retry's wait, doubled each time; default 30 s
	RetryMax    time.Duration // the longest wait; default 1 hour
	MaxAttempts int           // then the delivery fails; default 10
	Log         *slog.Logger
	// Now is the clock that says which deliveries are due and when a
	// retry will be; default time.Now.
	Now func() time.Time
}

func (j *Emit) defaults() {
	j.Batch = cmpOr(j.Batch, 50)
	j.Lease = cmpOr(j.Lease, 5*time.Minute)
	j.RetryBase = cmpOr(j.RetryBase, 30*time.Second)
	j.RetryMax = cmpOr(j.RetryMax, time.Hour)
	j.MaxAttempts = cmpOr(j.MaxAttempts, 10)
	if j.Now == nil {
		j.Now = time.Now
	}
}

func cmpOr[T comparable](v, def T) T {
	var zero T
	if v == zero {
		return def
	}
	return v
}

// Run enqueues the new result sets, then delivers every delivery due.
func (j *Emit) Run(ctx context.Context, _ catalog.JobRun) (map[string]int64, error) {
	j.defaults()
	counts := map[string]int64{"enqueued": 0, "delivered": 0, "retried": 0, "failed": 0}
	endpoints, err := j.Queue.Endpoints(ctx)
	if err != nil {
		return counts, err
	}
	byOrg := map[string]catalog.EmissionEndpoint{}
	for _, ep := range endpoints {
		byOrg[ep.OrgID] = ep
		n, err := j.Queue.Discover(ctx, ep)
		if err != nil {
			return counts, fmt.Errorf("finding new result sets of %s: %w", ep.OrgID, err)
		}
		counts["enqueued"] += n
	}
	for ctx.Err() == nil {
		batch, err := j.Queue.ClaimDeliveries(ctx, j.Owner, j.Batch, j.Lease, j.Now())
		if err != nil || len(batch) == 0 {
			return counts, err
		}
		for _, d := range batch {
			outcome := j.deliver(ctx, byOrg, d)
			if err := j.Queue.RecordAttempt(ctx, d, outcome); err != nil {
				return counts, err
			}
			switch {
			case outcome.Delivered:
				counts["delivered"]++
			case outcome.NextAttemptOn.IsZero():
				counts["failed"]++
				j.Log.Warn("a delivery failed for good", "delivery", d.ID, "org", d.OrgID, "attempts", d.Attempts+1, "err", outcome.Error)
			default:
				counts["retried"]++
			}
		}
	}
	return counts, ctx.Err()
}

// maxAcknowledgement bounds what is read of an endpoint's answer.
const maxAcknowledgement = 64 << 10

// deliver makes one attempt.
func (j *Emit) deliver(ctx context.Context, endpoints map[string]catalog.EmissionEndpoint, d catalog.Delivery) catalog.DeliveryOutcome {
	ep, ok := endpoints[d.OrgID]
	if !ok {
		return catalog.DeliveryOutcome{Error: "the organization has no endpoint any more"}
	}
	body, err := j.Item(ctx, d.OrgID, d.ConversationID)
	if err != nil {
		return j.retry(d, "the result set could not be read: "+err.Error())
	}
	header := http.Header{}
	header.Set("Content-Type", "application/json")
	header[DeliveryHeader] = []string{d.ID}
	header[EventHeader] = []string{d.EventType}
	header[SignatureHeader] = []string{Sign(ep.Secret, j.Now(), body)}
	resp, err := j.Post.Post(ctx, ep.URL, body, header)
	if err != nil {
		return j.retry(d, signedurl.Reason(err))
	}
	defer resp.Body.Close()
	answer, _ := io.ReadAll(io.LimitReader(resp.Body, maxAcknowledgement))
	if resp.StatusCode/100 != 2 {
		return j.retry(d, "the endpoint answered "+resp.Status)
	}
	receipt, uid := acknowledgement(answer)
	return catalog.DeliveryOutcome{Delivered: true, CustomerReceiptID: receipt, UID: uid}
}

// retry is a failed attempt's outcome: again after a wait that doubles
// with each attempt, or failed for good after MaxAttempts.
func (j *Emit) retry(d catalog.Delivery, why string) catalog.DeliveryOutcome {
	attempts := d.Attempts + 1
	if attempts >= j.MaxAttempts {
		return catalog.DeliveryOutcome{Error: why}
	}
	wait := j.RetryBase << min(attempts-1, 20)
	if wait > j.RetryMax || wait <= 0 {
		wait = j.RetryMax
	}
	return catalog.DeliveryOutcome{Error: why, NextAttemptOn: j.Now().Add(wait)}
}

// acknowledgement reads the receipt id and uid an endpoint may answer
// with: a JSON object with receiptId (or id) and uid, in any casing.
func acknowledgement(answer []byte) (receipt, uid *string) {
	var fields map[string]any
	if json.Unmarshal(answer, &fields) != nil {
		return nil, nil
	}
	for k, v := range fields {
		text, ok := v.(string)
		if !ok || text == "" {
			continue
		}
		switch strings.ToLower(k) {
		case "receiptid", "id":
			if receipt == nil || strings.EqualFold(k, "receiptId") {
				receipt = &text
			}
		case "uid":
			uid = &text
		}
	}
	return receipt, uid
}
