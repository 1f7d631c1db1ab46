package cli

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/earshot/earshot/internal/testlake"
	"github.com/earshot/earshot/warehouse/catalog"
)

// A server that starts marks interrupted only the runs of processes that
// stopped, for real: on the same host, this test's own process holds a run
// and beats for it, another run's process is gone; the starting server
// fails the gone one's run and leaves the live one's running.
func TestStartingServerLeavesALiveNeighboursRun(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a real process")
	}
	t.Parallel()
	ctx := context.Background()
	data := t.TempDir()
	srv := &crashServer{t: t, data: data}
	srv.start()
	srv.stop(syscall.SIGTERM)

	cat, err := catalog.Open(ctx, catalog.SchemePrefix+filepath.Join(data, "catalog.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer cat.Close()
	host, _ := os.Hostname()
	alive := fmt.Sprintf("%s:%d", host, os.Getpid())
	live, _ := cat.Jobs.StartJobRun(ctx, "compact", alive)
	gone, _ := cat.Jobs.StartJobRun(ctx, "compact", host+":1") // no such process beats
	db := testlake.CatalogSQL(t, filepath.Join(data, "catalog.db"))
	// Both began two minutes ago; the live one's process beats now.
	if _, err := db.Exec(`UPDATE job_runs SET started_on = ? WHERE id IN (?, ?)`, time.Now().UTC().Add(-2*time.Minute), live.ID, gone.ID); err != nil {
		t.Fatal(err)
	}
	if err := cat.Jobs.Heartbeat(ctx, alive); err != nil {
		t.Fatal(err)
	}

	srv.start()
	defer srv.stop(syscall.SIGTERM)
	status := func(id string) string {
		var s string
		if err := db.QueryRow(`SELECT status FROM job_runs WHERE id = ?`, id).Scan(&s); err != nil {
			t.Fatal(err)
		}
		return s
	}
	deadline := time.Now().Add(30 * time.Second)
	for status(gone.ID) != "failed" {
		if time.Now().After(deadline) {
			t.Fatal("the gone process's run was not marked failed within 30 s of the start")
		}
		time.Sleep(20 * time.Millisecond)
	}
	if s := status(live.ID); s != "running" {
		t.Errorf("the live neighbour's run is %s, want running", s)
	}
}
