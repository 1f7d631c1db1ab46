// Package catalog is Earshot's small, transactional state, kept by a store
// per domain over one database handle (see Catalog): organizations and API
// clients, people (roles, users, the hierarchy, agents), interactions and
// their ingest leases, classifiers, the lake manifest, job runs, reviews
// and settings.
// It is a row store: SQLite by default (one file in the data directory, in
// WAL mode, every commit synced), which other processes may open beside a
// running server. The lake itself is read by DuckDB (warehouse/lakedb),
// never through the catalog.
package catalog

import (
	"context"
	"crypto/md5"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"math/rand/v2"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/mattn/go-sqlite3"
)

// Catalog is an open catalog database: one handle shared by a store per
// domain. Consumers take the store they need (or declare the few methods
// they use); no store hands out the database itself.
type Catalog struct {
	handle
	Orgs         *OrgStore         // organizations and their API clients
	People       *PeopleStore      // roles, users, the hierarchy and agents
	Interactions *InteractionStore // uploads, ingest claims, statuses and commits
	Classifiers  *ClassifierStore
	Manifest     *ManifestStore // the lake's files
	Jobs         *JobStore      // job runs
	Reviews      *ReviewStore
	Settings     *SettingStore    // per-organization audio and privacy settings
	Keys         *KeyStore        // the API's token signing keys
	Evaluations  *EvaluationStore // quality evaluation forms, evaluations and answers
	Workflows    *WorkflowStore   // review workflow templates and workflows
	Emissions    *EmissionStore   // result emission endpoints and deliveries

	followers followers
	// stopListening ends the listener of other processes' changes
	// (PostgreSQL) and waits for it.
	stopListening func()
}

// handle is the database every store of a catalog shares; postgres says
// which engine it is (ADR 0003).
type handle struct {
	db       *sql.DB
	postgres bool
	// origin names this catalog's own announcements of changes
	// (changes.go). Empty on SQLite.
	origin string
	// writers queues this process's transactions on SQLite, where each
	// takes the database's one write lock as it begins (txlock=immediate):
	// they wait their turn here, handed on at once, rather than in SQLite's
	// busy handler, which sleeps and polls (a millisecond, then longer and
	// longer) while another holds the lock. nil on PostgreSQL.
	writers chan struct{}
	// checkpoints copies the log into the database file after this
	// process's writes (checkpoint.go). nil on PostgreSQL.
	checkpoints *checkpointer
}

// newCatalog builds the stores over db. What a store keeps in memory is
// its own; a commit that changes another domain's rows (an ingest adds
// lake files) drops that domain's copy through the shared cache.
func newCatalog(db *sql.DB, postgres bool) *Catalog {
	h := handle{db: db, postgres: postgres}
	if postgres {
		h.origin = NewID()
	} else {
		h.writers = make(chan struct{}, 1)
		h.checkpoints = startCheckpointer(db)
	}
	manifest := &orgCache[[]LakeFile]{}
	reviews := &orgCache[*reviewIndex]{}
	return &Catalog{
		handle:       h,
		Orgs:         &OrgStore{handle: h, tokenStates: newTokenStates()},
		People:       &PeopleStore{handle: h, trees: &orgCache[*Tree]{}},
		Interactions: &InteractionStore{handle: h, manifest: manifest, reviews: reviews},
		Classifiers:  &ClassifierStore{handle: h, classifiers: &orgCache[[]Classifier]{}},
		Manifest:     &ManifestStore{handle: h, manifest: manifest},
		Jobs:         &JobStore{handle: h},
		Reviews:      &ReviewStore{handle: h, reviews: reviews},
		Settings:     &SettingStore{handle: h},
		Keys:         &KeyStore{handle: h},
		Evaluations:  &EvaluationStore{handle: h},
		Workflows:    &WorkflowStore{handle: h},
		Emissions:    &EmissionStore{handle: h},
	}
}

// SchemePrefix is how a catalog address names its engine.
const SchemePrefix = "sqlite://"

// Open opens (creating if needed) the catalog at address — sqlite://PATH,
// or a bare file path — and applies every pending migration.
func Open(ctx context.Context, address string) (*Catalog, error) {
	if IsPostgres(address) {
		db, err := sql.Open(postgresDriverName, address)
		if err != nil {
			return nil, fmt.Errorf("open catalog: %w", err)
		}
		c, err := setUp(ctx, db, true, "catalog")
		if err != nil {
			return nil, err
		}
		c.followCaches()
		lctx, cancel := context.WithCancel(context.Background())
		done := make(chan struct{})
		go func() { defer close(done); c.listen(lctx, address) }()
		c.stopListening = func() { cancel(); <-done }
		return c, nil
	}
	path, err := FilePath(address)
	if err != nil {
		return nil, err
	}
	db, err := sql.Open(driverName, sqliteDSN(path))
	if err != nil {
		return nil, fmt.Errorf("open catalog %s: %w", path, err)
	}
	return setUp(ctx, db, false, path)
}

// IsPostgres tells whether a catalog address names PostgreSQL
// (postgres://… or postgresql://…).
func IsPostgres(address string) bool {
	return strings.HasPrefix(address, "postgres://") || strings.HasPrefix(address, "postgresql://")
}

// setUp checks the connection, applies the migrations and the standard
// roles.
func setUp(ctx context.Context, db *sql.DB, postgres bool, path string) (*Catalog, error) {
	if err := db.PingContext(ctx); err != nil {
		db.Close()
		return nil, fmt.Errorf("open catalog %s: %w", path, err)
	}
	c := newCatalog(db, postgres)
	if err := c.migrate(ctx); err != nil {
		c.Close()
		return nil, err
	}
	if err := c.ensureStandardRoles(ctx); err != nil {
		c.Close()
		return nil, fmt.Errorf("standard roles: %w", err)
	}
	return c, nil
}

// driverName is SQLite with the functions the catalog's SQL uses that
// SQLite lacks.
const driverName = "earshot-sqlite3"

func init() {
	sql.Register(driverName, &sqlite3.SQLiteDriver{ConnectHook: func(conn *sqlite3.SQLiteConn) error {
		if _, err := conn.Exec(fmt.Sprintf("PRAGMA wal_autocheckpoint = %d", autoCheckpointPages), nil); err != nil {
			return err
		}
		// md5(text) as lower-case hex, as PostgreSQL and DuckDB have it:
		// the QA sample's repeatable draw.
		return conn.RegisterFunc("md5", func(s string) string {
			sum := md5.Sum([]byte(s))
			return hex.EncodeToString(sum[:])
		}, true)
	}})
}

// FilePath is the file of a catalog address (sqlite://PATH, or a bare
// path); an address of another engine is an error that names it.
func FilePath(address string) (string, error) {
	switch {
	case strings.HasPrefix(address, SchemePrefix):
		return strings.TrimPrefix(address, SchemePrefix), nil
	case strings.Contains(address, "://"):
		scheme, _, _ := strings.Cut(address, "://")
		return "", fmt.Errorf("catalog %q: %s:// is not a catalog engine of this release (want sqlite://PATH)", address, scheme)
	case address == "":
		return "", errors.New("catalog: no address given (want sqlite://PATH)")
	}
	return address, nil
}

// sqliteDSN is the driver's address of the catalog file with the settings
// every connection needs:
//   - WAL: readers never wait for the writer, and other processes (the
//     CLI beside a running server) may open the file;
//   - synchronous=FULL: a commit is on disk before it returns, so a
//     power cut loses nothing a caller was told was committed;
//   - txlock=immediate: a transaction takes the write lock when it
//     begins, so two writers queue (busy_timeout) instead of one failing
//     when it upgrades a read lock;
//   - foreign keys off: the catalog code checks its links (as it did);
//   - a cache of prepared statements a connection: the catalog runs the
//     same statements again and again, and SQLite compiles one anew each
//     time otherwise (a bulk insert's statement of hundreds of rows, a
//     page's state check).
func sqliteDSN(path string) string {
	q := url.Values{}
	q.Set("_journal_mode", "WAL")
	q.Set("_synchronous", "FULL")
	q.Set("_busy_timeout", "10000")
	q.Set("_txlock", "immediate")
	q.Set("_foreign_keys", "off")
	q.Set("_stmt_cache_size", strconv.Itoa(statementsCached))
	return "file:" + path + "?" + q.Encode()
}

// statementsCached is how many prepared statements a connection keeps,
// the least recently used given up first: more than the catalog's
// statements on any hot path.
const statementsCached = 64

// Close stops following other processes' changes and releases the
// database.
func (c *Catalog) Close() error {
	if c.stopListening != nil {
		c.stopListening()
	}
	c.checkpoints.close()
	return c.db.Close()
}

// Ping tells whether the catalog answers a query.
func (c *Catalog) Ping(ctx context.Context) error {
	var one int
	return c.db.QueryRowContext(ctx, "SELECT 1").Scan(&one)
}

// maxAttempts bounds the retries of a transaction that found the database
// busy past its timeout.
const maxAttempts = 8

// inTx runs fn in a transaction and commits it. A transaction that fails
// because the database stayed busy is retried from the start (fn must be
// repeatable); any other error rolls back and is returned as is.
// SQLite's transactions are serial (one writer, taken at BEGIN);
// PostgreSQL's are made so, and the one that loses is retried.
func (h handle) inTx(ctx context.Context, fn func(tx *sql.Tx) error) error {
	return h.retried(ctx, sql.LevelSerializable, fn)
}

// inLockedTx is inTx for a transaction whose correctness rests on the rows
// it locks first (lockRows) and that otherwise writes only rows keyed by
// them or by new ids. PostgreSQL runs it READ COMMITTED: serializable mode
// tracks reads by index page and failed such transactions of processes
// working on different rows of one table (an ingest commit in ten, with
// two processes ingesting), each failure a redone commit.
func (h handle) inLockedTx(ctx context.Context, fn func(tx *sql.Tx) error) error {
	return h.retried(ctx, sql.LevelReadCommitted, fn)
}

// lockRows is the clause that locks the rows a query selects until the
// transaction ends (SQLite's one writer holds them all already).
func (h handle) lockRows() string {
	if h.postgres {
		return " FOR UPDATE"
	}
	return ""
}

func (h handle) retried(ctx context.Context, isolation sql.IsolationLevel, fn func(tx *sql.Tx) error) error {
	var err error
	for attempt := 0; attempt < maxAttempts; attempt++ {
		if attempt > 0 {
			backoff := time.Duration(1<<attempt) * time.Millisecond
			select {
			case <-ctx.Done():
				return ctx.Err()
			case <-time.After(backoff + rand.N(backoff)):
			}
		}
		err = h.runTx(ctx, isolation, fn)
		if !isConflict(err) {
			return err
		}
	}
	return fmt.Errorf("catalog: gave up after %d busy attempts: %w", maxAttempts, err)
}

func (h handle) runTx(ctx context.Context, isolation sql.IsolationLevel, fn func(tx *sql.Tx) error) error {
	leave, err := h.queue(ctx)
	if err != nil {
		return err
	}
	defer leave()
	var opts *sql.TxOptions
	if h.postgres {
		opts = &sql.TxOptions{Isolation: isolation}
	}
	return h.transact(ctx, opts, fn)
}

// transact runs fn in a transaction and commits it, or rolls it back when
// fn fails.
func (h handle) transact(ctx context.Context, opts *sql.TxOptions, fn func(tx *sql.Tx) error) error {
	tx, err := h.db.BeginTx(ctx, opts)
	if err != nil {
		return err
	}
	if err := fn(tx); err != nil {
		tx.Rollback()
		return err
	}
	return tx.Commit()
}

// writerWait bounds the wait for this process's other transactions, as
// busy_timeout bounds the wait for other processes': past it the
// transaction begins anyway and SQLite decides.
const writerWait = 10 * time.Second

// queue waits for this process's turn to write (see handle.writers);
// leave ends it.
func (h handle) queue(ctx context.Context) (leave func(), err error) {
	if h.writers == nil {
		return func() {}, nil
	}
	wait := time.NewTimer(writerWait)
	defer wait.Stop()
	select {
	case h.writers <- struct{}{}:
		return func() { <-h.writers; h.checkpoints.wrote() }, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	case <-wait.C:
		return func() {}, nil
	}
}

// exec runs one statement that writes, outside a transaction, in this
// process's turn (see handle.writers).
func (h handle) exec(ctx context.Context, query string, args ...any) (sql.Result, error) {
	leave, err := h.queue(ctx)
	if err != nil {
		return nil, err
	}
	defer leave()
	return h.db.ExecContext(ctx, query, args...)
}

// skipLocked is the claim's row locking: on PostgreSQL, workers claiming
// at once skip each other's rows; SQLite has one writer at a time.
func (h handle) skipLocked() string {
	if h.postgres {
		return " FOR UPDATE SKIP LOCKED"
	}
	return ""
}

// isConflict tells whether a transaction lost to another and may be
// retried: SQLite busy or locked, PostgreSQL serialization failure or
// deadlock.
func isConflict(err error) bool {
	var se sqlite3.Error
	if errors.As(err, &se) {
		return se.Code == sqlite3.ErrBusy || se.Code == sqlite3.ErrLocked
	}
	code := pgCode(err)
	return code == "40001" || code == "40P01"
}

// isUniqueViolation tells whether err is a primary-key or unique violation.
func isUniqueViolation(err error) bool {
	var se sqlite3.Error
	if errors.As(err, &se) {
		return se.ExtendedCode == sqlite3.ErrConstraintUnique || se.ExtendedCode == sqlite3.ErrConstraintPrimaryKey
	}
	return pgCode(err) == "23505"
}
