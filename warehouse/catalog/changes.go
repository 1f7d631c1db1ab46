package catalog

import (
	"context"
	"database/sql"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// What a process keeps in memory of the catalog (an organization's
// classifiers, hierarchy, manifest, reviews and evaluation forms, clients'
// token states, the signing keys) must follow changes made by other processes on the same
// PostgreSQL catalog. A transaction that changes such rows announces it on
// one channel with NOTIFY, which PostgreSQL delivers when (and only if) the
// transaction commits; every process LISTENs and drops what it kept. On
// SQLite one server owns the catalog and the other commands go through its
// admin socket: nothing to announce.

// changesChannel is the NOTIFY channel of catalog changes.
const changesChannel = "earshot_catalog_changes"

// The domains a change is announced in; a change's ids are organization
// ids, except for clients (client ids) and keys (none).
const (
	domainClassifiers = "classifiers"
	domainHierarchy   = "hierarchy"
	domainManifest    = "manifest"
	domainReviews     = "reviews"
	domainForms       = "forms"
	domainClients     = "clients"
	domainKeys        = "keys"
	domainAll         = "all"
)

// maxPayload keeps a notification under PostgreSQL's payload limit: a
// change of more ids is announced for every id of its domain.
const maxPayload = 7000

// originMark starts the first id of an announcement that names the
// catalog that made it. An earlier release takes it for one more id (of
// no organization), so it still drops what the change's ids name.
const originMark = "@"

// appliedWhereMade are the domains whose changes the process that makes
// them applies to what it keeps as it makes them (an ingest commit adds
// its files to the kept manifest): its own announcement of one would
// only drop what is kept up to date.
var appliedWhereMade = map[string]bool{domainManifest: true, domainReviews: true}

// changed announces, with tx's commit, that the domain's rows of ids
// changed (no ids: all of the domain's).
func (h handle) changed(ctx context.Context, tx *sql.Tx, domain string, ids ...string) error {
	if !h.postgres {
		return nil
	}
	payload := domain + ":"
	if len(ids) > 0 {
		payload += originMark + h.origin + "," + strings.Join(ids, ",")
	}
	if len(payload) > maxPayload {
		payload = domain + ":"
	}
	_, err := tx.ExecContext(ctx, `SELECT pg_notify(?, ?)`, changesChannel, payload)
	return err
}

// followers are what a catalog does with announced changes, in the order
// they were registered: the catalog's own caches first (at Open), so that
// a follower told of a change finds them following it already.
type followers struct {
	mu   sync.Mutex
	list []follower
}

type follower struct {
	domain string
	fn     func(ids []string)
}

// OnChange registers fn for changes of a domain made by any process,
// this one included (earshot serve reloads its signing keys on "keys").
func (c *Catalog) OnChange(domain string, fn func(ids []string)) {
	c.followers.mu.Lock()
	defer c.followers.mu.Unlock()
	c.followers.list = append(c.followers.list, follower{domain, fn})
}

// DomainKeys is the domain of signing key changes, for OnChange.
const DomainKeys = domainKeys

// apply hands an announced change to its domain's followers; "all" (and a
// change of unknown domain, from a newer release) goes to every follower.
// This catalog's own change of a domain applied where it is made is
// already applied.
func (c *Catalog) apply(payload string) {
	domain, list, _ := strings.Cut(payload, ":")
	var ids []string
	if list != "" {
		ids = strings.Split(list, ",")
	}
	if len(ids) > 0 && strings.HasPrefix(ids[0], originMark) {
		if ids[0] == originMark+c.origin && appliedWhereMade[domain] {
			return
		}
		ids = ids[1:]
	}
	c.followers.mu.Lock()
	every := domain == domainAll || !slices.ContainsFunc(c.followers.list, func(f follower) bool { return f.domain == domain })
	var fns []func([]string)
	for _, f := range c.followers.list {
		if every || f.domain == domain {
			fns = append(fns, f.fn)
		}
	}
	if every {
		ids = nil
	}
	c.followers.mu.Unlock()
	for _, fn := range fns {
		fn(ids)
	}
}

// followCaches makes the catalog's own caches follow announced changes.
func (c *Catalog) followCaches() {
	byOrg := func(drop func(...string), dropAll func()) func([]string) {
		return func(ids []string) {
			if len(ids) == 0 {
				dropAll()
				return
			}
			drop(ids...)
		}
	}
	c.OnChange(domainClassifiers, byOrg(c.Classifiers.classifiers.invalidate, c.Classifiers.classifiers.invalidateAll))
	c.OnChange(domainHierarchy, byOrg(c.People.trees.invalidate, c.People.trees.invalidateAll))
	c.OnChange(domainManifest, byOrg(c.Manifest.manifest.invalidate, c.Manifest.manifest.invalidateAll))
	c.OnChange(domainReviews, byOrg(c.Reviews.reviews.invalidate, c.Reviews.reviews.invalidateAll))
	c.OnChange(domainForms, byOrg(c.Evaluations.forms.invalidate, c.Evaluations.forms.invalidateAll))
	c.OnChange(domainClients, func(ids []string) {
		if len(ids) == 0 {
			c.Orgs.tokenStates.Purge()
		}
		for _, id := range ids {
			c.Orgs.tokenStates.Remove(id)
		}
	})
}

// listen receives the announced changes until ctx ends. Whenever it is not
// listening (before the first connection, after a lost one) it may miss
// changes, so every (re)connection first drops everything kept.
func (c *Catalog) listen(ctx context.Context, address string) {
	for ctx.Err() == nil {
		conn, err := pgx.Connect(ctx, address)
		if err == nil {
			if _, err = conn.Exec(ctx, "LISTEN "+changesChannel); err == nil {
				c.apply(domainAll + ":")
				for err == nil {
					var n *pgconn.Notification
					if n, err = conn.WaitForNotification(ctx); err == nil {
						c.apply(n.Payload)
					}
				}
			}
			conn.Close(context.Background())
		}
		select {
		case <-ctx.Done():
		case <-time.After(time.Second):
		}
	}
}
