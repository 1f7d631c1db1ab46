package cli

import (
	"bytes"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/earshot/earshot/internal/testlake"
)

// A server whose scheduled jobs find nothing to do is quiet at info, for
// real: runs of ingest and emit every second are recorded, and none of
// them is logged (finishLevel's test: a run that did something is).
func TestSchedulesThatFindNothingAreQuiet(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a real process")
	}
	t.Parallel()
	data, addr := t.TempDir(), freeAddr(t)
	var log bytes.Buffer
	cmd := child(t, nil, "serve", "--data", data, "--addr", addr, "--log-level", "info", "--log-format", "json",
		"--schedule-ingest", "@every 1s", "--schedule-compact", "off", "--schedule-sample", "off", "--schedule-export", "off",
		"--schedule-emit", "@every 1s")
	cmd.Stdout, cmd.Stderr = &log, &log
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { cmd.Process.Signal(syscall.SIGTERM); cmd.Wait() }()
	db := testlake.CatalogSQL(t, filepath.Join(data, "catalog.db"))
	deadline := time.Now().Add(30 * time.Second)
	for {
		var n int
		db.QueryRow(`SELECT count(*) FROM job_runs WHERE status = 'succeeded'`).Scan(&n)
		if n >= 4 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("fewer than 4 runs within 30 s:\n%s", log.String())
		}
		time.Sleep(50 * time.Millisecond)
	}
	cmd.Process.Signal(syscall.SIGTERM)
	cmd.Wait()
	if strings.Contains(log.String(), "job finished") || strings.Contains(log.String(), "job started") {
		t.Errorf("runs that found nothing were logged at info:\n%s", log.String())
	}
}
