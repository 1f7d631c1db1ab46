package catalog

import (
	"context"
	"slices"
	"testing"
	"time"
)

func TestOrgCache(t *testing.T) {
	var oc orgCache[int]
	reads := 0
	read := func(v int) func() (int, error) { return func() (int, error) { reads++; return v, nil } }
	if v, _ := oc.load("a", read(1)); v != 1 || reads != 1 {
		t.Fatalf("first load: %d, %d reads", v, reads)
	}
	if v, _ := oc.load("a", read(2)); v != 1 || reads != 1 {
		t.Fatalf("kept: %d, %d reads", v, reads)
	}
	oc.invalidate("b") // another organization's change keeps a's
	if v, _ := oc.load("a", read(2)); v != 1 || reads != 1 {
		t.Fatalf("after b's change: %d, %d reads", v, reads)
	}
	oc.invalidate("a")
	if v, _ := oc.load("a", read(3)); v != 3 || reads != 2 {
		t.Fatalf("after a's change: %d, %d reads", v, reads)
	}
	// A read that a change overlaps is answered but not kept.
	oc.invalidate("a")
	if v, _ := oc.load("a", func() (int, error) { oc.invalidate("a"); return read(4)() }); v != 4 {
		t.Fatal(v)
	}
	if v, _ := oc.load("a", read(5)); v != 5 || reads != 4 {
		t.Fatalf("an overlapped read was kept: %d, %d reads", v, reads)
	}
	if v, _ := oc.load("new", func() (int, error) { oc.invalidateAll(); return read(6)() }); v != 6 {
		t.Fatal(v)
	}
	if v, _ := oc.load("new", read(7)); v != 7 {
		t.Fatalf("a read overlapped by invalidateAll was kept: %d", v)
	}
	oc.invalidateAll()
	if v, _ := oc.load("a", read(8)); v != 8 {
		t.Fatalf("kept after invalidateAll: %d", v)
	}
	// A change reaches a kept value in place, and no read it overlaps is kept.
	var ptrs orgCache[*int]
	n := 1
	ptrs.load("a", func() (*int, error) { return &n, nil })
	ptrs.change("a", func(p *int) *int { *p++; return p })
	if p, _ := ptrs.load("a", nil); *p != 2 {
		t.Fatalf("changed in place: %d", *p)
	}
	ptrs.change("b", func(p *int) *int { t.Fatal("changed a value not kept"); return p })
	m := 10
	ptrs.load("c", func() (*int, error) { ptrs.change("c", func(p *int) *int { return p }); return &m, nil })
	if p, _ := ptrs.load("c", func() (*int, error) { m2 := 11; return &m2, nil }); *p != 11 {
		t.Fatalf("a read overlapped by a change was kept: %d", *p)
	}
	// A change may replace the kept value instead.
	oc.load("d", read(20))
	oc.change("d", func(v int) int { return v + 1 })
	if v, _ := oc.load("d", read(30)); v != 21 {
		t.Fatalf("replaced: %d", v)
	}
}

// TestManifestKeptBetweenCommits: the kept manifest shows every change,
// committed files and compaction swaps, and only the organization's files.
func TestManifestKeptBetweenCommits(t *testing.T) {
	ctx := context.Background()
	c := openTest(t)
	org, _ := c.Orgs.CreateOrganization(ctx, "acme")
	other, _ := c.Orgs.CreateOrganization(ctx, "other")
	day := time.Date(2025, 11, 3, 0, 0, 0, 0, time.UTC)
	file := func(orgID, path, minID, maxID string) LakeFile {
		return LakeFile{Path: path, Table: "conversations", OrgID: orgID, Date: day, Rows: 1, Bytes: 1, MinID: minID, MaxID: maxID,
			NodeCounts: map[string]int64{"": 1}, CompleteClassifiers: []string{}}
	}
	paths := func(orgID string) []string {
		files, err := c.Manifest.ManifestFiles(ctx, ManifestQuery{OrgID: orgID, Table: "conversations"})
		if err != nil {
			t.Fatal(err)
		}
		return Paths(files)
	}
	if got := paths(org.ID); len(got) != 0 {
		t.Fatalf("empty manifest: %v", got)
	}
	if err := c.Manifest.AddLakeFiles(ctx, "run1", []LakeFile{file(org.ID, "a1", "01", "02"), file(other.ID, "b1", "01", "02")}); err != nil {
		t.Fatal(err)
	}
	if got := paths(org.ID); len(got) != 1 || got[0] != "a1" {
		t.Fatalf("after adding: %v", got)
	}
	if err := c.Manifest.AddLakeFiles(ctx, "run2", []LakeFile{file(org.ID, "a2", "03", "04")}); err != nil {
		t.Fatal(err)
	}
	if got := paths(org.ID); len(got) != 2 {
		t.Fatalf("after adding another: %v", got)
	}
	if err := c.Manifest.SwapLakeFiles(ctx, "run3", []string{"a1", "a2"}, []LakeFile{file(org.ID, "a3", "01", "04")}); err != nil {
		t.Fatal(err)
	}
	if got := paths(org.ID); len(got) != 1 || got[0] != "a3" {
		t.Fatalf("after compacting: %v", got)
	}
	if got := paths(other.ID); len(got) != 1 || got[0] != "b1" {
		t.Fatalf("the other organization's: %v", got)
	}
	files, _ := c.Manifest.ManifestFiles(ctx, ManifestQuery{OrgID: org.ID, AfterID: "04"})
	if len(files) != 0 {
		t.Fatalf("after the last id: %v", Paths(files))
	}
	if files, _ := c.Manifest.ManifestFiles(ctx, ManifestQuery{}); len(files) != 2 {
		t.Fatalf("every organization's: %v", Paths(files))
	}
}

// TestManifestIDBounds: a manifest query's id bounds keep the files
// holding an id inside them, and its count counts what it lists.
func TestManifestIDBounds(t *testing.T) {
	ctx := context.Background()
	c := openTest(t)
	org, _ := c.Orgs.CreateOrganization(ctx, "acme")
	day := time.Date(2025, 11, 3, 0, 0, 0, 0, time.UTC)
	var files []LakeFile
	for _, f := range [][3]string{{"ab", "a", "b"}, {"cf", "c", "f"}, {"eh", "e", "h"}, {"kp", "k", "p"}} {
		files = append(files, LakeFile{Path: f[0], Table: "conversations", OrgID: org.ID, Date: day, Rows: 1, Bytes: 1, MinID: f[1], MaxID: f[2]})
	}
	if err := c.Manifest.AddLakeFiles(ctx, "run1", files); err != nil {
		t.Fatal(err)
	}
	for _, q := range []struct {
		afterID, minID, maxID string
		want                  []string
	}{
		{"", "", "", []string{"ab", "cf", "eh", "kp"}},
		{"", "f", "", []string{"cf", "eh", "kp"}},
		{"f", "", "", []string{"eh", "kp"}},
		{"", "", "e", []string{"ab", "cf", "eh"}},
		{"", "b", "c", []string{"ab", "cf"}},
		{"", "i", "j", []string{}},
		{"", "g", "k", []string{"eh", "kp"}},
	} {
		mq := ManifestQuery{OrgID: org.ID, AfterID: q.afterID, MinID: q.minID, MaxID: q.maxID}
		got, err := c.Manifest.ManifestFiles(ctx, mq)
		if err != nil || !slices.Equal(Paths(got), q.want) {
			t.Errorf("after %q, ids %q to %q: %v (%v), want %v", q.afterID, q.minID, q.maxID, Paths(got), err, q.want)
		}
		if n, err := c.Manifest.ManifestCount(ctx, mq); err != nil || n != len(q.want) {
			t.Errorf("after %q, ids %q to %q: counted %d (%v), want %d", q.afterID, q.minID, q.maxID, n, err, len(q.want))
		}
	}
}
