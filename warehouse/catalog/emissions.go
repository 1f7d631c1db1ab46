package catalog

import (
	"context"
	"database/sql"
	"strings"
	"time"
)

// EmissionStore keeps organizations' emission endpoints and the
// deliveries of their result sets.
type EmissionStore struct {
	handle
}

// Delivery statuses.
const (
	DeliveryPending   = "Pending"
	DeliveryDelivered = "Delivered"
	DeliveryFailed    = "Failed"
)

// EmissionEndpoint is where an organization's result sets are delivered.
type EmissionEndpoint struct {
	OrgID        string
	URL          string
	Secret       string // signs every delivery (HMAC-SHA256)
	CreatedOn    time.Time
	ScannedUntil time.Time
}

// SetEndpoint registers (or replaces) an organization's endpoint; result
// sets from now on are delivered to it.
func (c *EmissionStore) SetEndpoint(ctx context.Context, orgID, url, secret string) (EmissionEndpoint, error) {
	ep := EmissionEndpoint{OrgID: orgID, URL: url, Secret: secret, CreatedOn: now(), ScannedUntil: now()}
	return ep, c.inTx(ctx, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, `DELETE FROM emission_endpoints WHERE org_id = ?`, orgID); err != nil {
			return err
		}
		_, err := tx.ExecContext(ctx, `INSERT INTO emission_endpoints (org_id, url, secret, created_on, scanned_until) VALUES (?, ?, ?, ?, ?)`,
			ep.OrgID, ep.URL, ep.Secret, ep.CreatedOn, ep.ScannedUntil)
		return err
	})
}

// DeleteEndpoint stops deliveries to the organization's endpoint: pending
// ones fail.
func (c *EmissionStore) DeleteEndpoint(ctx context.Context, orgID string) error {
	return c.inTx(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `DELETE FROM emission_endpoints WHERE org_id = ?`, orgID)
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return ErrNotFound
		}
		_, err = tx.ExecContext(ctx, `UPDATE deliveries SET status = ?, last_error = ? WHERE org_id = ? AND status = ?`,
			DeliveryFailed, "the endpoint was removed", orgID, DeliveryPending)
		return err
	})
}

func scanEndpoint(s scanner) (EmissionEndpoint, error) {
	var ep EmissionEndpoint
	err := s.Scan(&ep.OrgID, &ep.URL, &ep.Secret, &ep.CreatedOn, &ep.ScannedUntil)
	ep.CreatedOn, ep.ScannedUntil = ep.CreatedOn.UTC(), ep.ScannedUntil.UTC()
	return ep, err
}

// Endpoint is an organization's endpoint.
func (c *EmissionStore) Endpoint(ctx context.Context, orgID string) (EmissionEndpoint, error) {
	return one(queryAll(ctx, c.db, scanEndpoint, `SELECT org_id, url, secret, created_on, scanned_until FROM emission_endpoints WHERE org_id = ?`, orgID))
}

// Endpoints are every organization's endpoints.
func (c *EmissionStore) Endpoints(ctx context.Context) ([]EmissionEndpoint, error) {
	return queryAll(ctx, c.db, scanEndpoint, `SELECT org_id, url, secret, created_on, scanned_until FROM emission_endpoints ORDER BY org_id`)
}

// discoveryOverlap is how far before its last scan a scan looks again: a
// commit stamped before the last scan may have become visible after it.
const discoveryOverlap = time.Hour

// maxDiscovered bounds the result sets one scan enqueues; the next scan
// takes the rest.
const maxDiscovered = 10_000

// Discover enqueues a delivery for every result set of the organization
// since its endpoint was registered that has none: the machine results of
// each processed conversation's current run, and each review. It returns
// how many it enqueued.
func (c *EmissionStore) Discover(ctx context.Context, ep EmissionEndpoint) (int64, error) {
	started := now()
	since := ep.ScannedUntil.Add(-discoveryOverlap)
	if since.Before(ep.CreatedOn) {
		since = ep.CreatedOn
	}
	type found struct {
		conversation, key, eventType string
		at                           time.Time
	}
	scan := func(s scanner) (found, error) {
		var f found
		err := s.Scan(&f.conversation, &f.key, &f.eventType, &f.at)
		f.at = f.at.UTC()
		return f, err
	}
	machine, err := queryAll(ctx, c.db, scan, `SELECT i.id, 'ModelResults:' || i.id || ':' || i.lake_run_id, 'ModelResults', i.modified_on
		FROM interactions i WHERE i.org_id = ? AND i.modified_on >= ? AND i.lake_run_id IS NOT NULL AND i.status IN ('ReadyToSample', 'Sampled')
		AND NOT EXISTS (SELECT 1 FROM deliveries d WHERE d.org_id = i.org_id AND d.result_key = 'ModelResults:' || i.id || ':' || i.lake_run_id)
		ORDER BY i.modified_on LIMIT ?`, ep.OrgID, stamp(since), maxDiscovered)
	if err != nil {
		return 0, err
	}
	reviews, err := queryAll(ctx, c.db, scan, `SELECT r.conversation_id, 'Review:' || r.id, r.event_type, r.event_time
		FROM result_reviews r WHERE r.org_id = ? AND r.event_time >= ?
		AND NOT EXISTS (SELECT 1 FROM deliveries d WHERE d.org_id = r.org_id AND d.result_key = 'Review:' || r.id)
		ORDER BY r.event_time LIMIT ?`, ep.OrgID, stamp(since), maxDiscovered)
	if err != nil {
		return 0, err
	}
	t := now()
	var rows [][]any
	for _, f := range append(machine, reviews...) {
		rows = append(rows, []any{NewID(), ep.OrgID, f.conversation, f.key, f.eventType, stamp(f.at), DeliveryPending, 0, t, t})
	}
	var enqueued int64
	err = c.inTx(ctx, func(tx *sql.Tx) (err error) {
		// Another process's discovery may have enqueued some since.
		if enqueued, err = insertNew(ctx, tx, "deliveries", deliveryInsertColumns, rows); err != nil {
			return err
		}
		if len(machine) == maxDiscovered || len(reviews) == maxDiscovered {
			return nil // more to find: look from the same place next time
		}
		_, err = tx.ExecContext(ctx, `UPDATE emission_endpoints SET scanned_until = ? WHERE org_id = ? AND created_on = ?`,
			started, ep.OrgID, ep.CreatedOn)
		return err
	})
	return enqueued, err
}

// Delivery is one result set's delivery to an organization's endpoint.
type Delivery struct {
	ID                string
	OrgID             string
	ConversationID    string
	EventType         string
	EventTime         time.Time
	Status            string
	Attempts          int
	NextAttemptOn     time.Time
	LastError         *string
	TransmittedOn     *time.Time
	CustomerReceiptID *string
	UID               *string
	CreatedOn         time.Time
}

const deliveryColumns = `d.id, d.org_id, d.conversation_id, d.event_type, d.event_time, d.status, d.attempts, d.next_attempt_on,
	d.last_error, d.transmitted_on, d.customer_receipt_id, d.uid, d.created_on`

func scanDelivery(s scanner) (Delivery, error) {
	var d Delivery
	err := s.Scan(&d.ID, &d.OrgID, &d.ConversationID, &d.EventType, &d.EventTime, &d.Status, &d.Attempts, &d.NextAttemptOn,
		&d.LastError, &d.TransmittedOn, &d.CustomerReceiptID, &d.UID, &d.CreatedOn)
	d.EventTime, d.NextAttemptOn, d.CreatedOn, d.TransmittedOn = d.EventTime.UTC(), d.NextAttemptOn.UTC(), d.CreatedOn.UTC(), stampPtr(d.TransmittedOn)
	return d, err
}

// ClaimDeliveries leases up to limit pending deliveries that are due at
// the time at (the job's clock), for owner, until lease runs out: another
// worker takes them only then.
func (c *EmissionStore) ClaimDeliveries(ctx context.Context, owner string, limit int, lease time.Duration, at time.Time) ([]Delivery, error) {
	var out []Delivery
	at = stamp(at)
	err := c.inTx(ctx, func(tx *sql.Tx) error {
		ids, err := queryAll(ctx, tx, func(s scanner) (string, error) {
			var id string
			return id, s.Scan(&id)
		}, `SELECT id FROM deliveries WHERE status = ? AND next_attempt_on <= ? AND (lease_until IS NULL OR lease_until < ?)
			ORDER BY next_attempt_on, id LIMIT ?`+c.lockRows(), DeliveryPending, at, at, limit)
		if err != nil || len(ids) == 0 {
			out = nil
			return err
		}
		if _, err := tx.ExecContext(ctx, `UPDATE deliveries SET lease_owner = ?, lease_until = ? WHERE `+anyOf("id"),
			owner, at.Add(lease), list(ids)); err != nil {
			return err
		}
		out, err = queryAll(ctx, tx, scanDelivery, `SELECT `+deliveryColumns+` FROM deliveries d WHERE `+anyOf("d.id")+` ORDER BY d.id`, list(ids))
		return err
	})
	return out, err
}

// DeliveryOutcome is what an attempt came to.
type DeliveryOutcome struct {
	Delivered         bool
	CustomerReceiptID *string
	UID               *string
	Error             string    // why it failed
	NextAttemptOn     time.Time // when to try again; zero: give up (Failed)
}

// RecordAttempt records an attempt's outcome and releases the lease.
func (c *EmissionStore) RecordAttempt(ctx context.Context, d Delivery, o DeliveryOutcome) error {
	at := now()
	var query string
	var args []any
	switch {
	case o.Delivered:
		query, args = `status = ?, transmitted_on = ?, customer_receipt_id = ?, uid = ?, last_error = NULL`,
			[]any{DeliveryDelivered, at, o.CustomerReceiptID, o.UID}
	case o.NextAttemptOn.IsZero():
		query, args = `status = ?, last_error = ?`, []any{DeliveryFailed, o.Error}
	default:
		query, args = `next_attempt_on = ?, last_error = ?`, []any{stamp(o.NextAttemptOn), o.Error}
	}
	return c.inTx(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `UPDATE deliveries SET `+query+`, attempts = attempts + 1, lease_owner = NULL, lease_until = NULL
			WHERE id = ?`, append(args, d.ID)...)
		return err
	})
}

// ReceiptFilter selects deliveries for GET /Receipts.
type ReceiptFilter struct {
	From, To     time.Time
	ByEvaluation bool   // the window is on the conversation's evaluations' submission, else its arrival
	Status       string // the conversation's
	NodeIDs      []string
	Scope        Scope
	AfterID      string
	Limit        int
}

// Receipts lists an organization's deliveries by id.
func (c *EmissionStore) Receipts(ctx context.Context, orgID string, f ReceiptFilter) ([]Delivery, error) {
	where := []string{"d.org_id = ?", "i.status = ?"}
	args := []any{orgID, f.Status}
	add := func(cond string, a ...any) {
		where = append(where, cond)
		args = append(args, a...)
	}
	if f.ByEvaluation {
		add(`EXISTS (SELECT 1 FROM evaluations e WHERE e.org_id = d.org_id AND e.conversation_id = d.conversation_id
			AND e.submitted_on BETWEEN ? AND ?)`, stamp(f.From), stamp(f.To))
	} else {
		add("i.arrived_on BETWEEN ? AND ?", stamp(f.From), stamp(f.To))
	}
	if f.NodeIDs != nil {
		add(anyOf("i.hierarchy_node_id"), list(f.NodeIDs))
	}
	if f.Scope != nil {
		cond, scopeArgs := f.Scope.where("i.media_type", "i.hierarchy_node_id")
		add(cond, scopeArgs...)
	}
	if f.AfterID != "" {
		add("d.id > ?", f.AfterID)
	}
	return queryAll(ctx, c.db, scanDelivery, `SELECT `+deliveryColumns+` FROM deliveries d
		JOIN interactions i ON i.org_id = d.org_id AND i.id = d.conversation_id
		WHERE `+strings.Join(where, " AND ")+` ORDER BY d.id LIMIT ?`, append(args, f.Limit)...)
}

// LatestReceipts are the latest delivered delivery of each conversation
// that has one.
func (c *EmissionStore) LatestReceipts(ctx context.Context, orgID string, conversationIDs []string) (map[string]Delivery, error) {
	out := map[string]Delivery{}
	if len(conversationIDs) == 0 {
		return out, nil
	}
	found, err := queryAll(ctx, c.db, scanDelivery, `SELECT `+deliveryColumns+` FROM deliveries d
		WHERE d.org_id = ? AND d.status = ? AND `+anyOf("d.conversation_id")+` ORDER BY d.transmitted_on, d.id`,
		orgID, DeliveryDelivered, list(conversationIDs))
	for _, d := range found {
		out[d.ConversationID] = d // the last one wins
	}
	return out, err
}
