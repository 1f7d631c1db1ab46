package cli

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
	runner := newJobRunner(&cfg, cat, lk, bucket, newEvaluationSlots(), slog.New(slog.NewTextHandler(io.Discard, nil)), nil)

	root := Root()
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

// Job settings are flags of the commands that run jobs, not of every
// command.
func TestJobFlagsWhereJobsRun(t *testing.T) {
	root := Root()
	for _, c := range []struct {
		path  []string
		flags map[string]bool // flag name → whether the command has it
	}{
		{[]string{"version"}, map[string]bool{"asr-engine": false, "ingest-batch": false, "llm-model": false, "schedule-ingest": false}},
		{[]string{"sql"}, map[string]bool{"asr-engine": false, "ingest-workers": false}},
		{[]string{"serve"}, map[string]bool{"asr-engine": true, "ingest-batch": true, "llm-model": true, "schedule-ingest": true}},
		{[]string{"jobs", "run"}, map[string]bool{"asr-engine": true, "ingest-batch": true, "schedule-ingest": false}},
		{[]string{"ingest"}, map[string]bool{"ingest-workers": true, "schedule-ingest": false}},
		{[]string{"admin", "org", "list"}, map[string]bool{"llm-model": true}},
	} {
		cmd, _, err := root.Find(c.path)
		if err != nil {
			t.Fatal(err)
		}
		for name, want := range c.flags {
			has := cmd.Flags().Lookup(name) != nil || cmd.PersistentFlags().Lookup(name) != nil || cmd.InheritedFlags().Lookup(name) != nil
			if has != want {
				t.Errorf("%v: flag --%s present %v, want %v", c.path, name, has, want)
			}
		}
	}
}
