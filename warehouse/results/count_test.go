package results

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/earshot/earshot/internal/lab/lakegen"
	"github.com/earshot/earshot/internal/testlake"
	"github.com/earshot/earshot/warehouse/catalog"
	"github.com/earshot/earshot/warehouse/lake"
)

// Count from the manifest must equal a scan of every file of the window's
// days, whatever the window, filters and file layout: whole days, a
// partial day, a day's arrivals held by part of it, a window ending at
// midnight (the next day's file holds none of its arrivals), interaction
// dates, hierarchy and classifier filters, re-run files overlapping
// others, a classifier complete in no file.
func TestCountMatchesScan(t *testing.T) {
	ctx := context.Background()
	cat, bucket, dir := testlake.New(t)
	w := &lake.Writer{Bucket: bucket}
	o := lakegen.Options{Orgs: 1, Conversations: 400, Days: 4, Classifiers: 3,
		Start: time.Date(2025, 10, 1, 0, 0, 0, 0, time.UTC), Seed: 3, PendingShare: 0.02}
	orgs, err := lakegen.Generate(ctx, cat, w, o)
	if err != nil {
		t.Fatal(err)
	}
	org := orgs[0]
	// A second commit over the first two days: its files overlap the
	// first commit's ids.
	more := o
	more.Seed, more.Days, more.Conversations = 4, 2, 60
	if err := lakegen.Commit(ctx, cat, w, orgs, more); err != nil {
		t.Fatal(err)
	}
	// A classifier whose results only some conversations of day 3 have (a
	// reclassification of part of the range).
	day3, err := cat.Manifest.ManifestFiles(ctx, catalog.ManifestQuery{OrgID: org.ID, Table: "conversations", Dates: []time.Time{o.Start.AddDate(0, 0, 2)}})
	if err != nil || len(day3) == 0 {
		t.Fatal(err, day3)
	}
	var partial []string
	r := &Reader{Manifest: cat.Manifest, Conversations: cat.Interactions, Lake: testlake.Engine(t, filepath.Join(dir, "bucket"))}
	rows, _, err := r.lakeConversations(ctx, PageQuery{OrgID: org.ID, Window: Window{From: o.Start, To: o.Start.AddDate(0, 0, 4)}}, day3, "", 1000)
	if err != nil {
		t.Fatal(err)
	}
	var b lake.Batch
	run := catalog.NewID()
	for i, c := range rows {
		if i%3 == 0 {
			partial = append(partial, c.ID)
			b.ClassifierResults = append(b.ClassifierResults, lake.ClassifierResult{ConversationID: c.ID, RunID: run, OrgID: org.ID,
				ArrivedOn: c.ArrivedOn, ClassifierID: "extra", Version: 1, Type: "Classifier", Category: "Topics", Result: "true"})
		}
	}
	files, err := w.Write(ctx, run, b)
	if err != nil {
		t.Fatal(err)
	}
	if err := cat.Interactions.CommitImport(ctx, catalog.Import{RunID: run, Files: files}); err != nil {
		t.Fatal(err)
	}

	day := func(d int) time.Time { return o.Start.AddDate(0, 0, d) }
	// The first and last arrivals of days 2 and 3 (a file each), for
	// windows at their very edges.
	arrivals := func(d int) (first, last time.Time) {
		files, err := cat.Manifest.ManifestFiles(ctx, catalog.ManifestQuery{OrgID: org.ID, Table: "conversations", Dates: []time.Time{day(d)}})
		if err != nil || len(files) != 1 || files[0].MinArrival == nil {
			t.Fatalf("day %d: %v %+v", d, err, files)
		}
		return *files[0].MinArrival, *files[0].MaxArrival
	}
	first2, last2 := arrivals(2)
	first3, _ := arrivals(3)
	us := time.Microsecond
	complete := []string{org.Classifiers[0].ID}
	region := []string{org.Teams[0], org.Teams[1], org.Teams[2]}
	for _, tc := range []struct {
		name        string
		w           Window
		nodes       []string
		classifiers []string
		min         int64 // the count is at least this (the case is not vacuous)
		manifest    int   // files counted from the manifest
	}{
		{"whole days", Window{From: day(2), To: day(4).Add(-time.Microsecond)}, nil, nil, 150, 2},
		{"whole days with re-run files", Window{From: day(0), To: day(2).Add(-time.Microsecond)}, nil, nil, 200, 0},
		{"partial days", Window{From: day(1).Add(5 * time.Hour), To: day(3).Add(7 * time.Hour)}, nil, nil, 100, 1},
		{"arrivals inside partial days", Window{From: day(2).Add(time.Microsecond), To: day(4).Add(-2 * time.Microsecond)}, nil, nil, 150, 2},
		{"ending at midnight", Window{From: day(2), To: day(3)}, nil, nil, 50, 1},
		{"a day's arrivals exactly", Window{From: first2, To: last2}, nil, nil, 50, 1},
		{"all but a day's first arrival", Window{From: first2.Add(us), To: last2}, nil, nil, 50, 0},
		{"all but a day's last arrival", Window{From: first2, To: last2.Add(-us)}, nil, nil, 50, 0},
		{"ending before a day's first arrival", Window{From: day(2), To: first3.Add(-us)}, nil, nil, 50, 1},
		{"ending at a day's first arrival", Window{From: day(2), To: first3}, nil, nil, 51, 1},
		{"hierarchy", Window{From: day(0), To: day(4)}, region, nil, 5, 2},
		{"complete classifier", Window{From: day(2), To: day(4).Add(-time.Microsecond)}, nil, complete, 150, 2},
		{"classifier complete nowhere", Window{From: day(0), To: day(4)}, nil, []string{"extra"}, int64(len(partial)), 0},
		{"hierarchy and classifier", Window{From: day(2), To: day(4).Add(-time.Microsecond)}, region, complete, 3, 2},
		{"interaction dates", Window{From: day(1), To: day(3), ByInteraction: true}, nil, nil, 100, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			q := PageQuery{OrgID: org.ID, Window: tc.w, NodeIDs: tc.nodes}
			got, err := r.Count(ctx, q, tc.classifiers)
			if err != nil {
				t.Fatal(err)
			}
			all, err := r.conversationFiles(ctx, q)
			if err != nil {
				t.Fatal(err)
			}
			days := all // the files of the window's days, none left out by its arrivals
			if !tc.w.ByInteraction {
				if days, err = cat.Manifest.ManifestFiles(ctx, catalog.ManifestQuery{OrgID: org.ID, Table: "conversations", From: tc.w.From, To: tc.w.To}); err != nil {
					t.Fatal(err)
				}
			}
			// Only a window ending before a day's first arrival leaves out
			// that day's file.
			if pruned := map[string]int{"ending at midnight": 1, "ending before a day's first arrival": 1}[tc.name]; len(days)-len(all) != pruned {
				t.Fatalf("%d of the window's %d files read, want %d left out", len(all), len(days), pruned)
			}
			want, err := r.scanCount(ctx, q, days, tc.classifiers)
			if err != nil {
				t.Fatal(err)
			}
			if got != want || got < tc.min {
				t.Fatalf("Count %d, a scan of every file counts %d (at least %d expected)", got, want, tc.min)
			}
			if tc.classifiers == nil { // the pages' walk, which reads the lake and the catalog its own way
				q.Limit = 10000
				page, _, err := r.Page(ctx, q, nil)
				if err != nil || int64(len(page)) != got {
					t.Fatalf("Count %d, the pages list %d (%v)", got, len(page), err)
				}
			}
			manifest := 0
			for _, cluster := range overlapping(all) {
				if _, ok := manifestCount(cluster, q, tc.classifiers); ok {
					manifest++
				}
			}
			if manifest != tc.manifest {
				t.Fatalf("%d files counted from the manifest, want %d", manifest, tc.manifest)
			}
		})
	}
}
