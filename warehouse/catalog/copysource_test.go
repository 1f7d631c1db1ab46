package catalog

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/earshot/earshot/internal/pgtest"
)

// TestCopyBetweenEngines: a SQLite catalog copied into PostgreSQL and back
// into a new SQLite file holds, table by table, the same rows; a copy into
// a catalog that has data is refused and changes nothing.
func TestCopyBetweenEngines(t *testing.T) {
	if testEngine != "sqlite" {
		t.Skip("the copy goes between both engines: it runs once")
	}
	ctx := context.Background()
	src := openAt(t, filepath.Join(t.TempDir(), "catalog.db"))
	fillForCopy(t, src)
	pg := openAt(t, pgtest.Database(t))
	back := openAt(t, filepath.Join(t.TempDir(), "back.db"))

	copyInto := func(from, to *Catalog) map[string]int64 {
		s, err := from.CopySource(ctx)
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		copied, err := to.CopyFrom(ctx, s)
		if err != nil {
			t.Fatal(err)
		}
		return copied
	}
	copied := copyInto(src, pg)
	copyInto(pg, back)
	want := dumpTables(t, src)
	for name, c := range map[string]*Catalog{"PostgreSQL": pg, "SQLite again": back} {
		got := dumpTables(t, c)
		for table, rows := range want {
			if !slices.Equal(got[table], rows) {
				t.Errorf("%s, table %s:\n got %v\nwant %v", name, table, got[table], rows)
			}
		}
	}
	var empty []string
	for table, n := range copied {
		if n == 0 {
			empty = append(empty, table)
		}
	}
	t.Logf("copied %v; empty: %v", copied, empty)
	if len(copied) < 18 || copied["interactions"] < 3 || copied["signing_keys"] != 1 {
		t.Fatalf("copied: %v", copied)
	}

	// Into a catalog with data: refused, and nothing changes.
	s, _ := src.CopySource(ctx)
	defer s.Close()
	if _, err := pg.CopyFrom(ctx, s); !errors.Is(err, ErrNotEmpty) {
		t.Fatalf("a copy into a catalog with data: %v", err)
	}
	if got := dumpTables(t, pg); !equalDumps(got, want) {
		t.Fatal("a refused copy changed the catalog")
	}
}

// fillForCopy writes rows into most of the catalog's tables through its
// stores.
func fillForCopy(t *testing.T, c *Catalog) {
	t.Helper()
	ctx := context.Background()
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	org, err := c.Orgs.CreateOrganization(ctx, "acme")
	must(err)
	_, err = c.Orgs.CreateClient(ctx, APIClient{ID: "client-1", OrgID: org.ID, Name: "ops", SecretHash: "hash"})
	must(err)
	must(c.Orgs.SetClientDisabled(ctx, "client-1", true))
	node, err := c.People.CreateNode(ctx, org.ID, NodeInput{Name: strp("Team A"), HierarchyCodes: &[]string{"T-A", "T-1"}})
	must(err)
	cl, err := c.Classifiers.CreateClassifier(ctx, org.ID, ClassifierInput{Name: strp("Cancel"), Type: strp("Classifier"), CategoryName: strp("Topics"),
		Reportable: boolp(true), Definition: json.RawMessage(`{"groups":[{"rules":[{"phrases":["cancel"]}]}]}`)})
	must(err)
	_, err = c.Classifiers.UpdateClassifier(ctx, org.ID, cl.ID, ClassifierInput{IsActive: boolp(false)})
	must(err)
	must(c.Settings.SetAudioSettings(ctx, AudioSettings{OrgID: org.ID, AgentChannel: 1}))
	must(c.Settings.SetPrivacySettings(ctx, PrivacySettings{OrgID: org.ID, RedactPII: true}))
	arrived := time.Date(2025, 10, 7, 9, 30, 15, 123456000, time.UTC)
	var ids []string
	for i := range 3 {
		code, key := fmt.Sprintf("agent-%d", i), "staging/x"
		id := NewID()
		ids = append(ids, id)
		must(c.Interactions.CreateInteraction(ctx, Interaction{ID: id, OrgID: org.ID, MediaType: MediaChat, Status: StatusProcessing,
			FileName: fmt.Sprintf("c/%02d.json", i), StagedKey: &key, ArrivedOn: arrived.Add(time.Duration(i) * time.Hour), AgentCode: &code,
			HierarchyNodeID: &node.ID, LocaleID: 1033, ExtendedMetadata: map[string]string{"k": "v é"}, Source: "text", ModifiedOn: arrived}, true))
	}
	run, err := c.Jobs.StartJobRun(ctx, "ingest", "worker")
	must(err)
	_, err = c.Jobs.FinishJobRun(ctx, run, map[string]int64{"uploads": 3}, nil)
	must(err)
	_, err = c.Jobs.ClaimTick(ctx, "sample", arrived.Truncate(time.Minute), "worker")
	must(err)
	_, err = c.Reviews.AddReview(ctx, Review{OrgID: org.ID, ConversationID: ids[0], EventType: "HumanReview", Reviewer: "qa",
		Results: []ReviewResult{{ModelID: cl.ID, Result: boolp(true)}}})
	must(err)
	_, err = c.Keys.AddSigningKeys(ctx, []SigningKey{{ID: "kid-1", PrivateKey: "-----BEGIN PRIVATE KEY-----\nx\n-----END PRIVATE KEY-----\n"}}, true)
	must(err)
	must(c.Interactions.CommitImport(ctx, Import{RunID: run.ID, Files: []LakeFile{{Path: "lake/conversations/org=" + org.ID + "/date=2025-10-07/f.parquet",
		OrgID: org.ID, Table: "conversations", Date: arrived.Truncate(24 * time.Hour), Rows: 3, MinID: ids[0], MaxID: ids[2]}}}))
}

// dumpTables is every table's rows as text, sorted, by table.
func dumpTables(t *testing.T, c *Catalog) map[string][]string {
	t.Helper()
	ctx := context.Background()
	s, err := c.CopySource(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	out := map[string][]string{}
	for _, table := range s.Tables() {
		var rows []string
		if _, err := s.Rows(ctx, table, func(columns []string, row []any) error {
			cells := make([]string, len(row))
			for i, v := range row {
				cells[i] = columns[i] + "=" + cellText(v)
			}
			slices.Sort(cells) // column order may differ between engines
			rows = append(rows, strings.Join(cells, " "))
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		slices.Sort(rows)
		out[table] = rows
	}
	return out
}

func cellText(v any) string {
	switch x := v.(type) {
	case nil:
		return "NULL"
	case time.Time:
		return x.UTC().Format("2006-01-02T15:04:05.999999")
	case []byte:
		return string(x)
	case bool: // a flag SQLite may keep as an integer
		if x {
			return "1"
		}
		return "0"
	default:
		return fmt.Sprint(x)
	}
}

func equalDumps(a, b map[string][]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if !slices.Equal(v, b[k]) {
			return false
		}
	}
	return true
}
