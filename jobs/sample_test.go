package jobs_test

import (
	"context"
	"database/sql"
	"io"
	"log/slog"
	"math"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/earshot/earshot/internal/lab/lakegen"
	"github.com/earshot/earshot/internal/testlake"
	"github.com/earshot/earshot/jobs"
	"github.com/earshot/earshot/warehouse/catalog"
	"github.com/earshot/earshot/warehouse/lake"
)

// sampleCatalog is a catalog with 1,500 generated conversations over 3
// weeks (the same ones for the same seed), and its file opened directly.
func sampleCatalog(t *testing.T) (*catalog.Catalog, *sql.DB) {
	t.Helper()
	ctx := context.Background()
	cat, bucket, dir := testlake.New(t)
	o := lakegen.Options{Orgs: 1, Conversations: 1500, Days: 21, Classifiers: 2, Start: time.Date(2025, 10, 6, 0, 0, 0, 0, time.UTC),
		Seed: 3, PendingShare: 0.02}
	if _, err := lakegen.Generate(ctx, cat, &lake.Writer{Bucket: bucket}, o); err != nil {
		t.Fatal(err)
	}
	return cat, testlake.CatalogSQL(t, filepath.Join(dir, testlake.CatalogFile))
}

// groups counts processed and sampled conversations per agent and ISO
// week (from Monday), and lists the sampled ids.
func groups(t *testing.T, db *sql.DB) (map[[2]string][2]int, []string) {
	t.Helper()
	rows, err := db.Query(`SELECT id, coalesce(agent_code, ''), arrived_on, status FROM interactions
		WHERE status IN ('ReadyToSample', 'Sampled') ORDER BY id`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	out := map[[2]string][2]int{}
	var sampled []string
	for rows.Next() {
		var id, agent, status string
		var arrived time.Time
		if err := rows.Scan(&id, &agent, &arrived, &status); err != nil {
			t.Fatal(err)
		}
		day := arrived.UTC().Truncate(24 * time.Hour)
		week := day.AddDate(0, 0, -(int(day.Weekday())+6)%7).Format(time.DateOnly)
		g := out[[2]string{agent, week}]
		g[0]++
		if status == catalog.StatusSampled {
			g[1]++
			sampled = append(sampled, id)
		}
		out[[2]string{agent, week}] = g
	}
	return out, sampled
}

func TestSampleShareDeterminismIdempotence(t *testing.T) {
	ctx := context.Background()
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	cat, db := sampleCatalog(t)
	job := &jobs.Sample{Sampler: cat.Interactions, Rate: 0.25, Seed: "s1", Log: log}
	counts, err := job.Run(ctx, catalog.JobRun{})
	if err != nil {
		t.Fatal(err)
	}
	byGroup, sampled := groups(t, db)
	if counts["sampled"] != int64(len(sampled)) || len(sampled) == 0 {
		t.Fatalf("job says %d sampled, catalog has %d", counts["sampled"], len(sampled))
	}
	for g, n := range byGroup {
		if want := int(math.Ceil(float64(n[0]) * 0.25)); n[1] != want {
			t.Fatalf("agent %s, week %s: %d of %d sampled, want %d", g[0], g[1], n[1], n[0], want)
		}
	}
	// Idempotent: a second run moves nothing.
	if counts, err := job.Run(ctx, catalog.JobRun{}); err != nil || counts["sampled"] != 0 {
		t.Fatalf("second run: %v %v", counts, err)
	}
	// Deterministic: the same seed on the same data chooses the same
	// conversations; another seed chooses others.
	same, sameDB := sampleCatalog(t)
	(&jobs.Sample{Sampler: same.Interactions, Rate: 0.25, Seed: "s1", Log: log}).Run(ctx, catalog.JobRun{})
	if _, again := groups(t, sameDB); !slices.Equal(again, sampled) {
		t.Fatal("the same seed chose different conversations")
	}
	other, otherDB := sampleCatalog(t)
	(&jobs.Sample{Sampler: other.Interactions, Rate: 0.25, Seed: "s2", Log: log}).Run(ctx, catalog.JobRun{})
	if _, diff := groups(t, otherDB); slices.Equal(diff, sampled) {
		t.Fatal("another seed chose the same conversations")
	}
	if _, err := (&jobs.Sample{Sampler: cat.Interactions, Rate: 1.5, Log: log}).Run(ctx, catalog.JobRun{}); err == nil {
		t.Fatal("a rate above 1 was accepted")
	}
}
