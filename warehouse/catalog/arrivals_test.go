package catalog

import (
	"context"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/earshot/earshot/internal/pgtest"
)

// TestRecordArrivals: the conversations files without an arrival range
// are listed, and a range recorded shows in the manifest (truncated to the
// catalog's microseconds), on PostgreSQL in every process's; an entry that
// has one keeps it, and one that is gone is left gone.
func TestRecordArrivals(t *testing.T) {
	ctx := context.Background()
	address := filepath.Join(t.TempDir(), "catalog.db")
	if testEngine == "postgres" {
		address = pgtest.Database(t)
	}
	c := openAt(t, address)
	processes := []*Catalog{c}
	if testEngine == "postgres" { // another process on the same catalog
		processes = append(processes, openAt(t, address))
	}
	org, _ := c.Orgs.CreateOrganization(ctx, "acme")
	org2, _ := c.Orgs.CreateOrganization(ctx, "other")
	day := time.Date(2025, 11, 3, 0, 0, 0, 0, time.UTC)
	first, last := day.Add(time.Hour+time.Nanosecond*1500), day.Add(5*time.Hour)
	file := func(orgID, table, path string, arrivals bool) LakeFile {
		f := LakeFile{Path: path, Table: table, OrgID: orgID, Date: day, Rows: 1, Bytes: 1, MinID: "01", MaxID: "02"}
		if arrivals {
			f.MinArrival, f.MaxArrival = &first, &last
		}
		return f
	}
	if err := c.Manifest.AddLakeFiles(ctx, "run1", []LakeFile{file(org.ID, "conversations", "a", false), file(org.ID, "conversations", "b", true),
		file(org.ID, "transcript_segments", "c", false), file(org2.ID, "conversations", "d", false)}); err != nil {
		t.Fatal(err)
	}
	without, err := c.Manifest.FilesWithoutArrivals(ctx)
	if err != nil || !slices.Equal(Paths(without), []string{"a", "d"}) || without[0].OrgID != org.ID || without[0].Table != "conversations" {
		t.Fatalf("files without arrivals: %+v %v", without, err)
	}
	arrivalsOf := func(c *Catalog, path string) (*time.Time, *time.Time) {
		files, err := c.Manifest.ManifestFiles(ctx, ManifestQuery{OrgID: org.ID, Table: "conversations"})
		if err != nil {
			t.Fatal(err)
		}
		i := slices.IndexFunc(files, func(f LakeFile) bool { return f.Path == path })
		if i < 0 {
			t.Fatalf("%s not in the manifest", path)
		}
		return files[i].MinArrival, files[i].MaxArrival
	}
	for _, p := range processes { // each keeps the manifest it read
		if lo, hi := arrivalsOf(p, "a"); lo != nil || hi != nil {
			t.Fatalf("before: %v %v", lo, hi)
		}
	}
	withArrivals := func(f LakeFile, lo, hi time.Time) []LakeFile {
		f.MinArrival, f.MaxArrival = &lo, &hi
		return []LakeFile{f}
	}
	if err := c.Manifest.RecordArrivals(ctx, withArrivals(without[0], first, last)); err != nil {
		t.Fatal(err)
	}
	recorded := func(p *Catalog) bool {
		lo, hi := arrivalsOf(p, "a")
		return lo != nil && lo.Equal(first.Truncate(time.Microsecond)) && hi != nil && hi.Equal(last)
	}
	if !recorded(c) {
		t.Fatal("the range recorded is not in the manifest")
	}
	for _, p := range processes[1:] { // told by a notification
		for deadline := time.Now().Add(10 * time.Second); !recorded(p); time.Sleep(20 * time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatal("the range recorded is not in the other process's manifest")
			}
		}
	}
	// A range recorded stays as it is; an entry gone stays gone.
	if err := c.Manifest.RecordArrivals(ctx, withArrivals(without[0], day, day)); err != nil {
		t.Fatal(err)
	}
	if lo, _ := arrivalsOf(c, "a"); !lo.Equal(first.Truncate(time.Microsecond)) {
		t.Fatalf("a recorded range changed: %v", lo)
	}
	if err := c.Manifest.RecordArrivals(ctx, withArrivals(LakeFile{Path: "gone", OrgID: org.ID}, first, last)); err != nil {
		t.Fatal(err)
	}
	if without, _ := c.Manifest.FilesWithoutArrivals(ctx); !slices.Equal(Paths(without), []string{"d"}) {
		t.Fatalf("files without arrivals after recording: %v", Paths(without))
	}
}
