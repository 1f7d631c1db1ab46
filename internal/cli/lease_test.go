package cli

import (
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/earshot/earshot/internal/testlake"
)

// How long an upload waits after the process ingesting it stops, with real
// processes: a graceful stop (SIGTERM) gives its claims back, so with an
// hour's lease the restarted server takes them at once; a killed process
// (SIGKILL) cannot, and its claims pass on when the default lease (30 s)
// runs out. The figures are logged.
func TestInterruptedIngestWaitsNoLease(t *testing.T) {
	if testing.Short() {
		t.Skip("runs real processes for a minute")
	}
	t.Parallel()
	for _, tc := range []struct {
		sig     syscall.Signal
		lease   string
		atMost  time.Duration
		release bool
	}{
		{syscall.SIGTERM, "1h", 20 * time.Second, true},
		{syscall.SIGKILL, "30s", 30*time.Second + 20*time.Second, false},
	} {
		data := t.TempDir()
		srv := &crashServer{t: t, data: data, lease: tc.lease}
		srv.start()
		for i := range 3 {
			srv.upload(i)
		}
		held := waitForClaims(t, data)
		srv.stop(tc.sig)
		if left := claimsHeld(t, data); tc.release && left > 0 {
			t.Errorf("%v: %d uploads still claimed after the stop (%d were)", tc.sig, left, held)
		}
		stopped := time.Now()
		srv.start()
		srv.waitIngested()
		waited := time.Since(stopped)
		t.Logf("%v with --ingest-lease %s: the interrupted uploads were ingested %.1f s after the stop", tc.sig, tc.lease, waited.Seconds())
		if waited > tc.atMost {
			t.Errorf("%v: the interrupted uploads waited %v, want at most %v", tc.sig, waited, tc.atMost)
		}
		srv.stop(syscall.SIGTERM)
	}
}

// waitForClaims waits until the server holds claims on pending uploads
// (the catalog read as another process would), and returns how many.
func waitForClaims(t *testing.T, data string) int {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		if n := claimsHeld(t, data); n > 0 {
			return n
		}
		if time.Now().After(deadline) {
			t.Fatal("no upload was claimed within 30 s")
		}
		time.Sleep(2 * time.Millisecond)
	}
}

// claimsHeld is how many pending uploads a worker holds a live claim on.
func claimsHeld(t *testing.T, data string) int {
	t.Helper()
	db := testlake.CatalogSQL(t, filepath.Join(data, "catalog.db"))
	defer db.Close()
	var n int
	if err := db.QueryRow(`SELECT count(*) FROM interactions WHERE status = 'Processing' AND lease_owner IS NOT NULL`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}
