package cli

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/earshot/earshot/internal/pgtest"
)

// TestCatalogCopyCommand: a data directory's SQLite catalog copied into
// PostgreSQL serves the same organizations and clients there; a second copy
// into the now full target is refused and names a table; a missing source
// is an error, not a new empty catalog.
func TestCatalogCopyCommand(t *testing.T) {
	data := t.TempDir()
	if _, err := run(t, "admin", "--data", data, "org", "create", "globex"); err != nil {
		t.Fatal(err)
	}
	if _, err := run(t, "admin", "client", "create", "--data", data, "--org", "globex"); err != nil {
		t.Fatal(err)
	}
	from := "sqlite://" + filepath.Join(data, "catalog.db")
	to := pgtest.Database(t)
	out, err := run(t, "admin", "catalog", "copy", "--from", from, "--to", to)
	if err != nil {
		t.Fatal(err)
	}
	var copied struct {
		Tables map[string]int64
		Rows   int64
	}
	if err := json.Unmarshal([]byte(out), &copied); err != nil {
		t.Fatalf("copy printed %s", out)
	}
	if copied.Tables["organizations"] != 1 || copied.Tables["api_clients"] != 1 || copied.Rows < 2 {
		t.Fatalf("copied %s", out)
	}
	for _, list := range [][]string{{"org", "list"}, {"client", "list"}} {
		there, err := run(t, append([]string{"admin", "--catalog", to, "--data", t.TempDir()}, list...)...)
		if err != nil {
			t.Fatal(err)
		}
		here, _ := run(t, append([]string{"admin", "--data", data}, list...)...)
		if there != here || !strings.Contains(there, "globex") && list[0] == "org" {
			t.Fatalf("%v on PostgreSQL:\n%s\nwant\n%s", list, there, here)
		}
	}

	_, err = run(t, "admin", "catalog", "copy", "--from", from, "--to", to)
	if err == nil || !strings.Contains(err.Error(), "the catalog already has data") {
		t.Fatalf("a copy into a full catalog: %v", err)
	}
	missing := "sqlite://" + filepath.Join(t.TempDir(), "none.db")
	if _, err := run(t, "admin", "catalog", "copy", "--from", missing, "--to", to); err == nil || !strings.Contains(err.Error(), "none.db") {
		t.Fatalf("a missing source: %v", err)
	}
}
