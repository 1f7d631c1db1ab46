package catalog

import (
	"context"
	"time"
)

// SQLite copies its write-ahead log into the database file (a checkpoint)
// inside the commit that takes the log past a size, and that commit waits
// for the copy: ingest's commits are its one serial stage. The catalog's
// connections leave it to a goroutine of their own instead
// (wal_autocheckpoint = 0 on every connection, catalog.go), which copies,
// every checkpointEvery, what no reader still needs without holding up
// a writer (PASSIVE). The last connection to close checkpoints the rest.

// checkpointEvery is how often the log is copied into the database file.
const checkpointEvery = time.Second

// startCheckpoints starts checkpointing the catalog's log; stop ends it
// and waits for it.
func (c *Catalog) startCheckpoints() (stop func()) {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		tick := time.NewTicker(checkpointEvery)
		defer tick.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-tick.C:
				// A checkpoint that fails (the disk full, the file gone)
				// leaves the log as it is for the next one.
				c.db.ExecContext(ctx, `PRAGMA wal_checkpoint(PASSIVE)`)
			}
		}
	}()
	return func() { cancel(); <-done }
}
