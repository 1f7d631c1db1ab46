package catalog

import (
	"context"
	"slices"
	"testing"
	"time"
)

// TestCompactionCandidates: a partition of several files is compacted
// unless they are all one compaction's output (which writes a large
// partition as several files itself).
func TestCompactionCandidates(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	c := openTest(t)
	org, _ := c.Orgs.CreateOrganization(ctx, "acme")
	runOf := func(job string) string {
		run, err := c.Jobs.StartJobRun(ctx, job, "worker")
		if err != nil {
			t.Fatal(err)
		}
		return run.ID
	}
	ingest, ingest2, compact, compact2, reclassify := runOf("ingest"), runOf("ingest"), runOf("compact"), runOf("compact"), runOf("reclassify")
	partitions := []struct {
		name      string
		runs      []string // a file each
		candidate bool
	}{
		{"one file", []string{ingest}, false},
		{"an ingest's batches", []string{ingest, ingest}, true},
		{"two ingests", []string{ingest, ingest2}, true},
		{"a compaction's split", []string{compact, compact, compact}, false},
		{"a compaction's one file and an ingest's", []string{compact, ingest}, true},
		{"two compactions' files", []string{compact, compact2}, true},
		{"a reclassification's files", []string{reclassify, reclassify}, true},
	}
	var want []string
	for i, p := range partitions {
		day := time.Date(2025, 11, 1+i, 0, 0, 0, 0, time.UTC)
		for k, run := range p.runs {
			f := LakeFile{Path: p.name + string(rune('a'+k)), Table: "classifier_results", OrgID: org.ID, Date: day, Rows: 1, Bytes: 1, MinID: "01", MaxID: "02"}
			if err := c.Manifest.AddLakeFiles(ctx, run, []LakeFile{f}); err != nil {
				t.Fatal(err)
			}
		}
		if p.candidate {
			want = append(want, p.name)
		}
	}
	parts, err := c.Manifest.CompactionCandidates(ctx, "compact")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, p := range parts {
		i := p.Date.Day() - 1
		if len(p.Paths) != len(partitions[i].runs) {
			t.Errorf("%s: %v", partitions[i].name, p.Paths)
		}
		got = append(got, partitions[i].name)
	}
	if !slices.Equal(got, want) {
		t.Fatalf("candidates %q, want %q", got, want)
	}
}
