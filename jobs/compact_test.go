package jobs

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/earshot/earshot/warehouse/blob"
	"github.com/earshot/earshot/warehouse/catalog"
	"github.com/earshot/earshot/warehouse/lake"
)

func TestCompact(t *testing.T) {
	ctx := context.Background()
	e := newEnv(t) // batches of 2 uploads: several files per partition
	cl, err := e.cat.Classifiers.CreateClassifier(ctx, e.org.ID, classifierInput("Refund", "Classifier", `{"groups":[{"rules":[{"phrases":["refund"]}]}]}`))
	if err != nil {
		t.Fatal(err)
	}
	var archives []string
	for i := range 5 {
		archives = append(archives, e.stage(t, fmt.Sprintf("day/%d.tar", i), tarOf(t, map[string]string{
			"a.json": earshotChat, "b.txt": textChat, "c.json": ccaiChat}, "")))
	}
	if _, err := e.runner.Run(ctx, "ingest"); err != nil {
		t.Fatal(err)
	}
	// A re-run of one archive leaves superseded rows behind in older files.
	e.sql.ExecContext(ctx, `UPDATE interactions SET status = 'Processing' WHERE id = ?`, archives[1])
	if _, err := e.runner.Run(ctx, "ingest"); err != nil {
		t.Fatal(err)
	}
	chats, _ := e.cat.Interactions.Interactions(ctx, e.org.ID, catalog.InteractionFilter{MediaType: "ProcessedChat", Limit: 100})
	before, err := e.reader.Transcripts(ctx, e.org.ID, chats)
	if err != nil || len(before) != 15 {
		t.Fatalf("transcripts before: %d %v", len(before), err)
	}
	var filesBefore int
	e.sql.QueryRow(`SELECT count(*) FROM lake_files`).Scan(&filesBefore)
	// Every conversations file records its counts by node and the
	// classifiers every conversation of it has a result of.
	manifest := func() []catalog.LakeFile {
		files, err := e.cat.Manifest.ManifestFiles(ctx, catalog.ManifestQuery{OrgID: e.org.ID, Table: "conversations"})
		if err != nil || len(files) == 0 {
			t.Fatalf("manifest: %v %v", files, err)
		}
		for _, f := range files {
			var sum int64
			for _, n := range f.NodeCounts {
				sum += n
			}
			if sum != f.Rows || !slices.Equal(f.CompleteClassifiers, []string{cl.ID}) {
				t.Fatalf("%s: %d rows, node counts %v, complete classifiers %v", f.Path, f.Rows, f.NodeCounts, f.CompleteClassifiers)
			}
		}
		return files
	}
	manifest()

	run, err := e.runner.Run(ctx, "compact")
	if err != nil {
		t.Fatal(err)
	}
	var filesAfter, partitions int
	e.sql.QueryRow(`SELECT count(*), count(DISTINCT org_id || table_name || part_date) FROM lake_files`).Scan(&filesAfter, &partitions)
	if filesAfter != partitions || filesAfter >= filesBefore || run.Counts["files_removed"] != int64(filesBefore) {
		t.Fatalf("%d files before, %d after in %d partitions; run %+v", filesBefore, filesAfter, partitions, run.Counts)
	}
	// Only current rows were kept: 15 conversations, 2 turns each, a
	// classifier result and a model result each.
	if run.Counts["rows"] != 15+30+15+15 {
		t.Fatalf("compacted rows %d, want 75", run.Counts["rows"])
	}
	manifest() // a compacted file keeps what all the files it merged said
	after, err := e.reader.Transcripts(ctx, e.org.ID, chats)
	if err != nil || fmt.Sprint(after) != fmt.Sprint(before) {
		t.Fatalf("transcripts changed by compaction: %v", err)
	}
	// The old files are gone from the bucket; only manifest files remain.
	var onDisk int
	for o, err := range e.bucket.List(ctx, "lake/") {
		if err != nil {
			t.Fatal(err)
		}
		if !strings.HasSuffix(o.Key, ".parquet") {
			continue
		}
		onDisk++
	}
	if onDisk != filesAfter {
		t.Fatalf("%d parquet files on disk, %d in the manifest", onDisk, filesAfter)
	}
	// A file a crashed run left outside the manifest is removed once it is
	// old enough, not before.
	orphan := "lake/conversations/org=" + e.org.ID + "/date=2025-01-01/part-crashed.parquet"
	e.bucket.Put(ctx, orphan, strings.NewReader("PAR1"), blob.PutOptions{})
	if run, _ := e.runner.Run(ctx, "compact"); run.Counts["orphans_removed"] != 0 {
		t.Fatal("a fresh unlisted file was removed")
	}
	old := time.Now().Add(-2 * OrphanAge)
	os.Chtimes(filepath.Join(e.lake.Root(), orphan), old, old)
	// An export snapshot is no orphan, however old.
	snapshot := ExportPath("users", e.org.ID)
	e.bucket.Put(ctx, snapshot, strings.NewReader("PAR1"), blob.PutOptions{})
	os.Chtimes(filepath.Join(e.lake.Root(), snapshot), old, old)
	if run, _ := e.runner.Run(ctx, "compact"); run.Counts["orphans_removed"] != 1 {
		t.Fatalf("orphan not removed: %+v", run.Counts)
	}
	if _, err := e.bucket.Stat(ctx, snapshot); err != nil {
		t.Fatalf("compaction removed an export snapshot: %v", err)
	}
	// A second compaction has nothing to do.
	run, _ = e.runner.Run(ctx, "compact")
	if run.Counts["partitions"] != 0 {
		t.Fatalf("second compaction: %+v", run.Counts)
	}
}

// TestCompactionSplitIsCompact: a partition a compaction wrote as several
// files (large, encoded on two cores) is not compacted again.
func TestCompactionSplitIsCompact(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	e := newEnv(t)
	e.runner.Register("compact", &Compact{Manifest: e.cat.Manifest, Runs: e.cat.Interactions, Partitions: e.lake, Lake: &lake.Writer{Bucket: e.bucket, Workers: 2},
		Bucket: e.bucket, Log: slog.New(slog.NewTextHandler(io.Discard, nil))})
	// Two chats of 8,200 turns: a day's segments twice the rows a file
	// split off holds at least.
	var long strings.Builder
	for i := range 8200 {
		fmt.Fprintf(&long, "[%02d:%02d:%02d] Agent: line %d\n", i/3600, i/60%60, i%60, i)
	}
	e.stage(t, "long.tar", tarOf(t, map[string]string{"a.txt": long.String(), "b.txt": long.String()}, ""))
	e.stage(t, "short.tar", tarOf(t, map[string]string{"c.txt": textChat}, ""))
	if _, err := e.runner.Run(ctx, "ingest"); err != nil {
		t.Fatal(err)
	}
	segmentFiles := func() int {
		var n int
		e.sql.QueryRow(`SELECT count(*) FROM lake_files WHERE table_name = 'transcript_segments'`).Scan(&n)
		return n
	}
	run, err := e.runner.Run(ctx, "compact")
	if err != nil || run.Counts["partitions"] == 0 || segmentFiles() != 2 {
		t.Fatalf("first compaction: %+v, %d segments files (%v)", run.Counts, segmentFiles(), err)
	}
	if run, err = e.runner.Run(ctx, "compact"); err != nil || run.Counts["partitions"] != 0 || segmentFiles() != 2 {
		t.Fatalf("second compaction: %+v, %d segments files (%v)", run.Counts, segmentFiles(), err)
	}
}

// TestCompactRecordsArrivals: the conversations files whose manifest
// entries lack their arrival range (written before entries recorded it)
// get it from the files themselves, as the writer records it; a file that
// cannot be read is left without and does not fail the run.
func TestCompactRecordsArrivals(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	e := newEnv(t) // batches of 2 uploads: both archives in one file
	for i := range 2 {
		e.stage(t, fmt.Sprintf("day/%d.tar", i), tarOf(t, map[string]string{"a.json": earshotChat, "b.txt": textChat}, ""))
	}
	ingest, err := e.runner.Run(ctx, "ingest")
	if err != nil {
		t.Fatal(err)
	}
	written, err := e.cat.Manifest.ManifestFiles(ctx, catalog.ManifestQuery{OrgID: e.org.ID, Table: "conversations"})
	if err != nil || len(written) != 1 || written[0].MinArrival == nil || !written[0].MaxArrival.After(*written[0].MinArrival) {
		t.Fatalf("written: %+v %v", written, err)
	}
	// As a release before arrival ranges wrote it, and an entry whose file
	// is gone.
	if _, err := e.sql.ExecContext(ctx, `UPDATE lake_files SET min_arrival = NULL, max_arrival = NULL WHERE table_name = 'conversations'`); err != nil {
		t.Fatal(err)
	}
	missing := written[0]
	missing.Path, missing.Date, missing.MinArrival, missing.MaxArrival = "lake/conversations/org="+e.org.ID+"/date=2025-01-02/part-gone.parquet",
		time.Date(2025, 1, 2, 0, 0, 0, 0, time.UTC), nil, nil
	if err := e.cat.Manifest.AddLakeFiles(ctx, ingest.ID, []catalog.LakeFile{missing}); err != nil {
		t.Fatal(err)
	}
	unrecorded := func() []string {
		files, err := e.cat.Manifest.FilesWithoutArrivals(ctx)
		if err != nil {
			t.Fatal(err)
		}
		return catalog.Paths(files)
	}
	if got := unrecorded(); !slices.Equal(got, []string{missing.Path, written[0].Path}) {
		t.Fatalf("files without arrivals: %v", got)
	}
	for round, want := range []int64{1, 0} {
		run, err := e.runner.Run(ctx, "compact")
		if err != nil || run.Status != "succeeded" || run.Counts["arrivals_recorded"] != want {
			t.Fatalf("compaction %d: %+v %v", round, run, err)
		}
	}
	if got := unrecorded(); !slices.Equal(got, []string{missing.Path}) {
		t.Fatalf("files without arrivals after compaction: %v", got)
	}
	recorded, err := e.cat.Manifest.ManifestFiles(ctx, catalog.ManifestQuery{OrgID: e.org.ID, Table: "conversations", Dates: []time.Time{written[0].Date}})
	if err != nil || len(recorded) != 1 || !recorded[0].MinArrival.Equal(*written[0].MinArrival) || !recorded[0].MaxArrival.Equal(*written[0].MaxArrival) {
		t.Fatalf("recorded %+v, written %v – %v (%v)", recorded, written[0].MinArrival, written[0].MaxArrival, err)
	}
}
