package catalog

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"
	"time"
)

// An ingest commit adds its files to the manifest kept in memory instead
// of having it read again, and what is kept is what a read gives: the same
// files, values and order, on both engines, for files of several
// organizations and days committed out of order, with times finer than
// the catalog keeps and dates in another zone.
func TestCommittedFilesKeptAsRead(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	c := openTest(t)
	acme, _ := c.Orgs.CreateOrganization(ctx, "acme")
	other, _ := c.Orgs.CreateOrganization(ctx, "other")
	paris := time.FixedZone("Paris", 3600)
	day := func(d int) time.Time { return time.Date(2025, 11, d, 0, 0, 0, 0, time.UTC) }
	fine := time.Date(2025, 11, 3, 10, 0, 0, 123456789, paris)
	n := 0
	file := func(orgID, table string, date time.Time, minID string) LakeFile {
		n++
		f := LakeFile{Path: fmt.Sprintf("lake/%s/%d.parquet", table, n), Table: table, OrgID: orgID, Date: date, Rows: 3, Bytes: 100,
			MinID: minID, MaxID: minID + "z"}
		if table == "conversations" {
			later := fine.Add(time.Duration(n) * time.Hour)
			f.MinInteraction, f.MaxInteraction, f.MinArrival, f.MaxArrival = &fine, &later, &fine, &later
			f.NodeCounts, f.CompleteClassifiers = map[string]int64{"": 2, "n1": 1}, []string{}
			if n%2 == 0 {
				f.CompleteClassifiers = []string{"c1"}
			}
		}
		return f
	}
	read := func(orgID string) []LakeFile {
		t.Helper()
		files, err := c.Manifest.ManifestFiles(ctx, ManifestQuery{OrgID: orgID})
		if err != nil {
			t.Fatal(err)
		}
		return files
	}
	commit := func(files ...LakeFile) {
		t.Helper()
		if err := c.Interactions.CommitIngest(ctx, IngestCommit{RunID: NewID(), Owner: "w", Files: files}); err != nil {
			t.Fatal(err)
		}
	}
	commit(file(acme.ID, "conversations", day(3), "m"), file(acme.ID, "segments", day(3), "m"))
	read(acme.ID) // kept from here on
	read(other.ID)
	batches := [][]LakeFile{
		{file(acme.ID, "conversations", day(3), "c"), file(acme.ID, "conversations", day(1), "x"), file(other.ID, "conversations", day(3), "a")},
		{file(acme.ID, "classifier_results", day(5), "a"), file(acme.ID, "conversations", day(3), "t"), file(acme.ID, "model_results", day(3), "b")},
		// A date in another zone is its own calendar day, as the catalog keeps it.
		{file(acme.ID, "conversations", time.Date(2025, 11, 4, 0, 30, 0, 0, paris), "k"), file(other.ID, "segments", day(2), "z")},
	}
	for _, b := range batches {
		commit(b...)
		for _, org := range []string{acme.ID, other.ID} {
			fresh, err := loadManifest(ctx, c.db, org)
			if err != nil {
				t.Fatal(err)
			}
			if got, want := jsonOf(t, read(org)), jsonOf(t, fresh); got != want {
				t.Fatalf("kept manifest of %s:\n%s\nread again:\n%s", org, got, want)
			}
		}
	}
	if c.postgres {
		return // its own commit's announcement may have dropped what was kept meanwhile
	}
	c.Manifest.manifest.mu.Lock()
	kept := len(c.Manifest.manifest.values[acme.ID])
	c.Manifest.manifest.mu.Unlock()
	if kept != 8 {
		t.Fatalf("the commits' files were not added to the kept manifest: %d kept", kept)
	}
}

func jsonOf(t *testing.T, v any) string {
	t.Helper()
	b, err := json.MarshalIndent(v, "", " ")
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// withFiles merges in manifest order and adds no file twice.
func TestWithFiles(t *testing.T) {
	t.Parallel()
	f := func(path string, d int, minID string) LakeFile {
		return LakeFile{Path: path, Date: time.Date(2025, 11, d, 0, 0, 0, 0, time.UTC), MinID: minID}
	}
	a, b, c, d := f("a", 1, "5"), f("b", 2, "1"), f("c", 2, "7"), f("d", 3, "0")
	for _, tc := range []struct {
		name       string
		all, added []LakeFile
		want       string
	}{
		{"into an empty manifest", nil, []LakeFile{a, c}, "a c"},
		{"between and around", []LakeFile{b, c}, []LakeFile{a, f("e", 2, "3"), d}, "a b e c d"},
		{"an equal key after the kept one", []LakeFile{b}, []LakeFile{f("e", 2, "1")}, "b e"},
		{"a file kept already", []LakeFile{a, c}, []LakeFile{c, d}, "a c d"},
		{"nothing", []LakeFile{a}, nil, "a"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before := fmt.Sprint(Paths(tc.all))
			got := withFiles(tc.all, tc.added)
			if s := fmt.Sprint(Paths(got)); s != "["+tc.want+"]" {
				t.Fatalf("got %s, want [%s]", s, tc.want)
			}
			if fmt.Sprint(Paths(tc.all)) != before {
				t.Fatal("the kept manifest was changed under its readers")
			}
		})
	}
}
