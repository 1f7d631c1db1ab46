package catalog

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/earshot/earshot/internal/pgtest"
)

// TestChangesReachOtherProcesses: what one process keeps in memory follows
// what another process on the same PostgreSQL catalog commits, within a
// second, also after its listening connection was cut.
func TestChangesReachOtherProcesses(t *testing.T) {
	if testEngine != "postgres" {
		t.Skip("on SQLite one server owns the catalog; other commands go through its admin socket")
	}
	ctx := context.Background()
	address := pgtest.Database(t)
	a, b := openAt(t, address), openAt(t, address)
	org, err := a.Orgs.CreateOrganization(ctx, "acme")
	if err != nil {
		t.Fatal(err)
	}
	client, err := a.Orgs.CreateClient(ctx, APIClient{ID: "c1", OrgID: org.ID, Name: "c", SecretHash: "h"})
	if err != nil {
		t.Fatal(err)
	}
	var keyChanges atomic.Int32
	b.OnChange(DomainKeys, func([]string) { keyChanges.Add(1) })

	// within waits until B sees what A did, for at most a second.
	within := func(what string, seen func() bool) {
		t.Helper()
		start := time.Now()
		for !seen() {
			if time.Since(start) > time.Second {
				t.Fatalf("%s: not seen by the other process within 1 s", what)
			}
			time.Sleep(10 * time.Millisecond)
		}
		t.Logf("%s: seen after %s", what, time.Since(start).Round(time.Millisecond))
	}
	round := func(label string) {
		// B reads (and keeps) first; then A changes.
		before, _ := b.Classifiers.Classifiers(ctx, org.ID, ClassifierFilter{})
		tree, _ := b.People.Hierarchy(ctx, org.ID)
		nodes := tree.Len()
		st, _ := b.Orgs.ClientTokenState(ctx, client.ID)
		keysBefore := keyChanges.Load()
		lake, _ := b.Manifest.ManifestFiles(ctx, ManifestQuery{OrgID: org.ID})

		if _, err := a.Classifiers.CreateClassifier(ctx, org.ID, ClassifierInput{Name: strp(label), Type: strp("Classifier"),
			CategoryName: strp("Topics"), Definition: json.RawMessage(`{"groups":[{"rules":[{"phrases":["x"]}]}]}`)}); err != nil {
			t.Fatal(err)
		}
		if _, err := a.People.CreateNode(ctx, org.ID, NodeInput{Name: strp(label)}); err != nil {
			t.Fatal(err)
		}
		if err := a.Orgs.SetClientDisabled(ctx, client.ID, !st.Disabled); err != nil {
			t.Fatal(err)
		}
		if _, err := a.Keys.AddSigningKeys(ctx, []SigningKey{{ID: label, PrivateKey: "pem"}}, false); err != nil {
			t.Fatal(err)
		}
		if err := a.Interactions.CommitIngest(ctx, IngestCommit{RunID: NewID(), Owner: "w", Files: []LakeFile{{Path: label + ".parquet",
			Table: "conversations", OrgID: org.ID, Date: time.Date(2025, 11, 3, 0, 0, 0, 0, time.UTC), MinID: "a", MaxID: "b"}}}); err != nil {
			t.Fatal(err)
		}
		within(label+": a new lake file", func() bool {
			got, _ := b.Manifest.ManifestFiles(ctx, ManifestQuery{OrgID: org.ID})
			return len(got) == len(lake)+1
		})
		within(label+": a new classifier", func() bool {
			got, _ := b.Classifiers.Classifiers(ctx, org.ID, ClassifierFilter{})
			return len(got) == len(before)+1
		})
		within(label+": a new hierarchy node", func() bool {
			tree, _ := b.People.Hierarchy(ctx, org.ID)
			return tree.Len() == nodes+1
		})
		within(label+": a client disabled or enabled", func() bool {
			now, _ := b.Orgs.ClientTokenState(ctx, client.ID)
			return now.Disabled != st.Disabled
		})
		within(label+": a new signing key", func() bool { return keyChanges.Load() > keysBefore })
	}
	round("first")

	// Cut B's listening connection: it reconnects, and follows again.
	// Only this database's: the tests beside this one listen on the same
	// server, and cutting theirs drops what they keep.
	listeners := func() []int {
		t.Helper()
		var pids []int
		rows, err := a.db.QueryContext(ctx, `SELECT pid FROM pg_stat_activity WHERE query = 'LISTEN `+changesChannel+`' AND pid <> pg_backend_pid()
			AND datname = current_database()`)
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		for rows.Next() {
			var pid int
			rows.Scan(&pid)
			pids = append(pids, pid)
		}
		return pids
	}
	// Both listen (a listener that reconnected a moment ago may not have
	// sent its LISTEN yet): wait for them, then cut both.
	var cut []int
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		if cut = listeners(); len(cut) == 2 || time.Now().After(deadline) {
			break
		}
	}
	if len(cut) != 2 {
		t.Fatalf("%d listening connections to cut (want A's and B's)", len(cut))
	}
	for _, pid := range cut {
		if _, err := a.db.ExecContext(ctx, `SELECT pg_terminate_backend($1)`, pid); err != nil {
			t.Fatal(err)
		}
	}
	// The listeners wait a second before they reconnect: then two new ones listen.
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		fresh := 0
		for _, pid := range listeners() {
			if !slices.Contains(cut, pid) {
				fresh++
			}
		}
		if fresh == 2 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d of 2 listeners back 10 s after the cut", fresh)
		}
	}
	round("after a cut")
}

// A process's own announcement of a change it applied to what it keeps as
// it made it (an ingest commit's files) does not drop what it keeps; every
// other announcement is followed, an earlier release's (no origin) too. A
// change of everything reaches every follower in the order registered.
func TestOwnAnnouncementsOfAppliedChanges(t *testing.T) {
	t.Parallel()
	c := &Catalog{handle: handle{origin: "me"}}
	var got []string
	for _, domain := range []string{domainManifest, domainClassifiers} {
		c.OnChange(domain, func(ids []string) { got = append(got, domain+" "+strings.Join(ids, ",")) })
	}
	for _, tc := range []struct{ payload, want string }{
		{"manifest:@me,o1,o2", ""},
		{"manifest:@other,o1,o2", "manifest o1,o2"},
		{"manifest:o1", "manifest o1"},
		{"manifest:", "manifest "},
		{"classifiers:@me,o1", "classifiers o1"},
		// every follower, in the order registered (the catalog's own caches first)
		{"all:", "manifest ;classifiers "},
		{"a-newer-release-domain:o1", "manifest ;classifiers "},
	} {
		got = nil
		c.apply(tc.payload)
		if strings.Join(got, ";") != tc.want {
			t.Errorf("%q: followers got %q, want %q", tc.payload, got, tc.want)
		}
	}
}

// On PostgreSQL the catalog hears its own ingest commit's announcement and
// keeps the manifest it added the files to: it is not read again.
func TestOwnCommitKeepsTheManifest(t *testing.T) {
	if testEngine != "postgres" {
		t.Skip("SQLite announces nothing")
	}
	t.Parallel()
	ctx := context.Background()
	c := openTest(t)
	org, _ := c.Orgs.CreateOrganization(ctx, "acme")
	heard := make(chan struct{}, 8)
	c.OnChange(DomainKeys, func([]string) { heard <- struct{}{} })
	// The listener's first connection drops everything: wait for it
	// before anything is kept.
	waitHeard := func() {
		t.Helper()
		if _, err := c.Keys.AddSigningKeys(ctx, []SigningKey{{ID: NewID(), PrivateKey: "pem"}}, false); err != nil {
			t.Fatal(err)
		}
		select {
		case <-heard:
		case <-time.After(10 * time.Second):
			t.Fatal("the catalog did not hear its own announcement within 10 s")
		}
	}
	waitHeard()
	if _, err := c.Manifest.ManifestFiles(ctx, ManifestQuery{OrgID: org.ID}); err != nil {
		t.Fatal(err)
	}
	if err := c.Interactions.CommitIngest(ctx, IngestCommit{RunID: NewID(), Owner: "w", Files: []LakeFile{{Path: "a.parquet",
		Table: "conversations", OrgID: org.ID, Date: time.Date(2025, 11, 3, 0, 0, 0, 0, time.UTC), MinID: "a", MaxID: "b"}}}); err != nil {
		t.Fatal(err)
	}
	waitHeard() // announcements arrive in commit order: the commit's has been heard
	c.Manifest.manifest.mu.Lock()
	kept, ok := c.Manifest.manifest.values[org.ID]
	c.Manifest.manifest.mu.Unlock()
	if !ok || len(kept) != 1 {
		t.Fatalf("after its own commit's announcement the manifest kept is %v (kept: %v)", Paths(kept), ok)
	}
}
