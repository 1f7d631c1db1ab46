package main

import (
	"context"
	"io"
	"log/slog"
	"strings"
	"testing"

	"github.com/earshot/earshot/internal/testlake"
)

// The commands' help names every job they run: serve's every scheduled
// job, `jobs run`'s every job (reclassify as one the API starts).
func TestHelpNamesEveryJob(t *testing.T) {
	ctx := context.Background()
	cfg := defaultConfig()
	cfg.DataDir = t.TempDir()
	cat, bucket, _ := testlake.New(t)
	lk, err := openLake(ctx, &cfg, cat)
	if err != nil {
		t.Fatal(err)
	}
	defer lk.engine.Close()
	runner := newJobRunner(&cfg, cat, lk, bucket, slog.New(slog.NewTextHandler(io.Discard, nil)), nil)

	root := rootCommand()
	short := func(path ...string) string {
		cmd, _, err := root.Find(path)
		if err != nil {
			t.Fatal(err)
		}
		return cmd.Short
	}
	for name := range cfg.schedules() {
		if !strings.Contains(short("serve"), name) {
			t.Errorf("serve's help %q does not name the scheduled job %s", short("serve"), name)
		}
	}
	names := runner.Names()
	if len(names) < 5 {
		t.Fatalf("jobs: %v", names)
	}
	for _, name := range names {
		if !strings.Contains(short("jobs", "run"), name) {
			t.Errorf("jobs run's help %q does not name the job %s", short("jobs", "run"), name)
		}
	}
}
