package jobs

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/fsouza/fake-gcs-server/fakestorage"
	"google.golang.org/api/option"

	"github.com/earshot/earshot/internal/testlake"
	"github.com/earshot/earshot/pipeline"
	"github.com/earshot/earshot/pipeline/archive"
	"github.com/earshot/earshot/warehouse/blob"
	"github.com/earshot/earshot/warehouse/catalog"
	"github.com/earshot/earshot/warehouse/lake"
	"github.com/earshot/earshot/warehouse/results"
)

// With a GCS bucket (fake-gcs-server in the test), the lake's files go to
// the bucket and are written through to a local cache DuckDB reads; a cache
// lost (a new machine) is filled again from the manifest.
func TestLakeOnGCSWithLocalCache(t *testing.T) {
	ctx := context.Background()
	srv, err := fakestorage.NewServerWithOptions(fakestorage.Options{Scheme: "http", Host: "127.0.0.1"})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Stop()
	srv.CreateBucketWithOpts(fakestorage.CreateBucketOpts{Name: "lake-test"})
	gcs, err := blob.OpenGCS(ctx, "lake-test", "earshot", option.WithEndpoint(srv.URL()+"/storage/v1/"), option.WithoutAuthentication())
	if err != nil {
		t.Fatal(err)
	}
	defer gcs.Close()

	dir := t.TempDir()
	cache := filepath.Join(dir, "lake-cache")
	cat, err := catalog.Open(ctx, filepath.Join(dir, testlake.CatalogFile))
	if err != nil {
		t.Fatal(err)
	}
	defer cat.Close()
	engine := testlake.Engine(t, cache)
	reader := &results.Reader{Manifest: cat.Manifest, Conversations: cat.Interactions, Lake: engine, Figures: cat.Manifest}
	org, _ := cat.Orgs.CreateOrganization(ctx, "acme")
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	writer := &lake.Writer{Bucket: gcs, Cache: cache}
	runner := NewRunner(cat.Jobs, "gcs-worker", log, nil)
	runner.Register("ingest", &Ingest{Uploads: cat.Interactions, Lake: writer, Open: gcs.Get,
		Processors: []pipeline.Processor{pipeline.Chats{Limits: archive.DefaultLimits}}, Queues: []Queue{{MediaTypes: []string{catalog.MediaChat}, BatchSize: 1}},
		Owner: "gcs-worker", Workers: 1, Lease: time.Minute, Log: log})
	runner.Register("compact", &Compact{Manifest: cat.Manifest, Runs: cat.Interactions, Partitions: engine, Lake: writer, Bucket: gcs, Cache: cache, Log: log})

	for i := range 2 {
		id := catalog.NewID()
		key := "staging/" + org.ID + "/" + id + "/day.tar"
		gcs.Put(ctx, key, bytes.NewReader(tarOf(t, map[string]string{"a.json": earshotChat, "b.txt": textChat}, "")), blob.PutOptions{})
		now := time.Now().UTC()
		cat.Interactions.CreateInteraction(ctx, catalog.Interaction{ID: id, OrgID: org.ID, MediaType: "Chat", Status: "Processing",
			FileName: "day" + string(rune('0'+i)) + ".tar", StagedKey: &key, ArrivedOn: now, LocaleID: 1033, Source: "file", ModifiedOn: now}, false)
	}
	if _, err := runner.Run(ctx, "ingest"); err != nil {
		t.Fatal(err)
	}
	paths, _ := cat.Manifest.LakePaths(ctx)
	for _, p := range paths {
		if _, err := srv.GetObject("lake-test", "earshot/"+p); err != nil {
			t.Fatalf("%s is not in the bucket: %v", p, err)
		}
	}
	chats, _ := cat.Interactions.Interactions(ctx, org.ID, catalog.InteractionFilter{MediaType: "ProcessedChat", Limit: 10})
	want, err := reader.Transcripts(ctx, org.ID, chats)
	if err != nil || len(want) != 4 {
		t.Fatalf("transcripts from the cache: %d %v", len(want), err)
	}

	// A new machine: no cache. Fill brings every manifest file back.
	os.RemoveAll(cache)
	n, err := lake.Fill(ctx, gcs, cache, paths)
	if err != nil || n != len(paths) {
		t.Fatalf("fill: %d of %d, %v", n, len(paths), err)
	}
	if got, err := reader.Transcripts(ctx, org.ID, chats); err != nil || len(got) != len(want) {
		t.Fatalf("after refill: %d %v", len(got), err)
	}
	if n, _ := lake.Fill(ctx, gcs, cache, paths); n != 0 {
		t.Fatalf("a full cache fetched %d files again", n)
	}

	// Compaction replaces files in the bucket and in the cache alike.
	if _, err := runner.Run(ctx, "compact"); err != nil {
		t.Fatal(err)
	}
	for _, old := range paths {
		if _, err := os.Stat(filepath.Join(cache, old)); err == nil {
			t.Fatalf("compacted file %s still cached", old)
		}
	}
	if got, err := reader.Transcripts(ctx, org.ID, chats); err != nil || len(got) != len(want) {
		t.Fatalf("after compaction: %d %v", len(got), err)
	}
}
