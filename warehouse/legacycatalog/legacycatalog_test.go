package legacycatalog

import (
	"compress/gzip"
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/earshot/earshot/warehouse/catalog"
)

// fixture is a DuckDB catalog written by the release before the SQLite
// catalog (earshot demo with 12 chats in 2 archives and a call, a review,
// privacy and audio settings, a second organization), unpacked into dir.
func fixture(t *testing.T, dir string) string {
	t.Helper()
	in, err := os.Open(filepath.Join("testdata", "catalog-0.duckdb.gz"))
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	zr, err := gzip.NewReader(in)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "catalog.duckdb")
	out, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(out, zr); err != nil {
		t.Fatal(err)
	}
	if err := out.Close(); err != nil {
		t.Fatal(err)
	}
	return path
}

// Every table of the old catalog arrives with all its rows, in the shapes
// the catalog reads; the old file is kept under a new name.
func TestMigrateFixture(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	legacy := fixture(t, dir)
	newPath := filepath.Join(dir, "catalog.db")
	copied, err := Migrate(ctx, legacy, newPath)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]int64{"organizations": 2, "api_clients": 1, "roles": 8, "users": 3, "hierarchy_nodes": 14,
		"hierarchy_codes": 14, "agents": 16, "interactions": 15, "lake_files": 4, "classifiers": 8, "classifier_versions": 8,
		"org_privacy_settings": 1, "org_audio_settings": 1, "result_reviews": 1}
	for table, n := range want {
		if copied[table] != n {
			t.Errorf("%s: %d rows copied, want %d", table, copied[table], n)
		}
	}
	if _, err := os.Stat(legacy); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("the old catalog is still at its name: %v", err)
	}
	if _, err := os.Stat(legacy + MigratedSuffix); err != nil {
		t.Fatal(err)
	}

	cat, err := catalog.Open(ctx, newPath)
	if err != nil {
		t.Fatal(err)
	}
	defer cat.Close()
	orgs, err := cat.Orgs.Organizations(ctx)
	if err != nil || len(orgs) != 2 || orgs[0].Name != "demo" {
		t.Fatalf("organizations %+v %v", orgs, err)
	}
	demo := orgs[0].ID
	tree, err := cat.People.Hierarchy(ctx, demo)
	if err != nil || tree.Len() != 14 {
		t.Fatalf("hierarchy: %v", err)
	}
	agents, err := cat.People.Agents(ctx, demo, nil)
	if err != nil || len(agents) != 16 || len(agents[0].OSMs) == 0 {
		t.Fatalf("agents %d %v (first %+v)", len(agents), err, agents[0])
	}
	roles, err := cat.People.Roles(ctx, demo, nil)
	if err != nil || len(roles) != 4 || len(roles[0].Permissions) == 0 {
		t.Fatalf("roles %+v %v", roles, err)
	}
	chats, err := cat.Interactions.Interactions(ctx, demo, catalog.InteractionFilter{MediaType: catalog.MediaProcessedChat, Limit: 100})
	if err != nil || len(chats) != 12 || chats[0].LakeRunID == nil || chats[0].UploadID == nil {
		t.Fatalf("chats %d %v", len(chats), err)
	}
	files, err := cat.Manifest.ManifestFiles(ctx, catalog.ManifestQuery{OrgID: demo, Table: "conversations"})
	if err != nil || len(files) == 0 || files[0].NodeCounts == nil || files[0].Date.IsZero() {
		t.Fatalf("manifest %+v %v", files, err)
	}
	states, err := cat.Interactions.ConversationStates(ctx, demo, []string{chats[0].ID}, true)
	if err != nil || states[chats[0].ID].Status == "" {
		t.Fatalf("states %+v %v", states, err)
	}
	privacy, err := cat.Settings.PrivacySettings(ctx, demo)
	if err != nil || !privacy.RedactPII {
		t.Fatalf("privacy %+v %v", privacy, err)
	}
	audio, err := cat.Settings.AudioSettings(ctx, demo)
	if err != nil || audio.AgentChannel != 1 {
		t.Fatalf("audio %+v %v", audio, err)
	}
	runs, err := cat.Jobs.JobRuns(ctx, "", 10)
	if err != nil || len(runs) < 4 || runs[0].StartedOn.IsZero() {
		t.Fatalf("job runs %+v %v", runs, err)
	}
}

// A failed copy leaves the old catalog in place and no new one, so that
// the next start tries again.
func TestMigrateFailureKeepsTheOldCatalog(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	legacy := fixture(t, dir)
	newPath := filepath.Join(dir, "catalog.db")
	// A new catalog that already has an organization refuses the copy.
	cat, err := catalog.Open(ctx, newPath)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := cat.Orgs.CreateOrganization(ctx, "already"); err != nil {
		t.Fatal(err)
	}
	cat.Close()
	if _, err := Migrate(ctx, legacy, newPath); !errors.Is(err, catalog.ErrNotEmpty) {
		t.Fatalf("copy into a catalog with data: %v", err)
	}
	if _, err := os.Stat(legacy); err != nil {
		t.Fatalf("the old catalog moved after a failed copy: %v", err)
	}
	if _, err := os.Stat(newPath); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("the failed copy's catalog was left behind: %v", err)
	}
	// The next try, on a clean slate, succeeds.
	if _, err := Migrate(ctx, legacy, newPath); err != nil {
		t.Fatal(err)
	}
}
