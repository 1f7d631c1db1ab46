package catalog

import (
	"context"
	"database/sql"
	"time"
)

// Checkpoints on SQLite. In WAL mode a commit appends its pages to the
// write-ahead log (and syncs it: synchronous=FULL); a checkpoint copies
// them into the database file and syncs that. By default SQLite runs the
// checkpoint inside the commit that takes the log past its threshold —
// an ingest commit, nearly every time — so the one writer of the moment
// also copied and synced the database file before the next writer could
// begin. Here a goroutine of the process checkpoints after its writes,
// beside the next one, and a commit only appends to the log. What a
// commit made durable is the same: the log it synced.

// autoCheckpointPages is the log size (in pages) at which a commit still
// checkpoints itself, as SQLite does by default at a much smaller size: a
// bound on the log while the process's checkpointer is behind or stopped.
const autoCheckpointPages = 16384

// checkpointSpacing is the least time between two checkpoints of a
// process: the writes of a busy API are checkpointed together, not each
// with a sync of its own.
const checkpointSpacing = 50 * time.Millisecond

// checkpointer checkpoints the catalog's log after this process's writes
// (wrote), one checkpoint at a time; writes that end while one runs are
// covered by the next.
type checkpointer struct {
	kick chan struct{}
	stop context.CancelFunc
	done chan struct{}
}

func startCheckpointer(db *sql.DB) *checkpointer {
	ctx, stop := context.WithCancel(context.Background())
	c := &checkpointer{kick: make(chan struct{}, 1), stop: stop, done: make(chan struct{})}
	go c.run(ctx, db)
	return c
}

// wrote says a write of this process has ended.
func (c *checkpointer) wrote() {
	select {
	case c.kick <- struct{}{}:
	default: // one is due already
	}
}

func (c *checkpointer) run(ctx context.Context, db *sql.DB) {
	defer close(c.done)
	for {
		select {
		case <-ctx.Done():
			return
		case <-c.kick:
		}
		// PASSIVE: copies what no reader still needs, never waits for
		// readers or the writer. A failed one (the database busy, say)
		// leaves its pages to the next, and to autoCheckpointPages.
		db.ExecContext(ctx, `PRAGMA wal_checkpoint(PASSIVE)`)
		select {
		case <-ctx.Done():
			return
		case <-time.After(checkpointSpacing):
		}
	}
}

// close stops the checkpointer and waits for it; the database's last
// connection to close checkpoints what is left. A catalog on PostgreSQL
// has none (nil).
func (c *checkpointer) close() {
	if c == nil {
		return
	}
	c.stop()
	<-c.done
}
