package pgtest

import (
	"context"
	"database/sql"
	"sync"
	"testing"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib"
)

// A real cluster starts, takes connections, and keeps one worker's locked
// rows from another: the claims of several ingest processes rely on
// FOR UPDATE SKIP LOCKED.
func TestClusterAndSkipLocked(t *testing.T) {
	c := Start(t)
	db, err := sql.Open("pgx", c.URL())
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var v string
	if err := db.QueryRowContext(ctx, `SHOW server_version`).Scan(&v); err != nil || v == "" {
		t.Fatalf("server_version %q: %v", v, err)
	}
	if _, err := db.ExecContext(ctx, `CREATE TABLE jobs (id int PRIMARY KEY, owner text);
		INSERT INTO jobs SELECT g, NULL FROM generate_series(1, 10) g`); err != nil {
		t.Fatal(err)
	}
	// Two workers claim 5 rows each at the same time: neither waits for
	// the other, and no row is claimed twice.
	var locked sync.WaitGroup // each worker holds its rows
	locked.Add(2)
	claim := func(owner string, hold chan struct{}) ([]int, error) {
		var once sync.Once
		holding := func() { once.Do(locked.Done) }
		defer holding() // a failed claim holds nothing, and must not be waited for
		tx, err := db.BeginTx(ctx, nil)
		if err != nil {
			return nil, err
		}
		defer tx.Rollback()
		rows, err := tx.QueryContext(ctx, `SELECT id FROM jobs WHERE owner IS NULL ORDER BY id LIMIT 5 FOR UPDATE SKIP LOCKED`)
		if err != nil {
			return nil, err
		}
		var ids []int
		for rows.Next() {
			var id int
			rows.Scan(&id)
			ids = append(ids, id)
		}
		rows.Close()
		holding()
		<-hold
		for _, id := range ids {
			if _, err := tx.ExecContext(ctx, `UPDATE jobs SET owner = $1 WHERE id = $2`, owner, id); err != nil {
				return nil, err
			}
		}
		return ids, tx.Commit()
	}
	hold := make(chan struct{})
	var wg sync.WaitGroup
	got := map[string][]int{}
	var mu sync.Mutex
	for _, owner := range []string{"a", "b"} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ids, err := claim(owner, hold)
			if err != nil {
				t.Error(err)
			}
			mu.Lock()
			got[owner] = ids
			mu.Unlock()
		}()
	}
	locked.Wait() // both hold their rows: neither waited for the other
	close(hold)
	wg.Wait()
	seen := map[int]bool{}
	for _, ids := range got {
		for _, id := range ids {
			if seen[id] {
				t.Fatalf("row %d claimed twice: %v", id, got)
			}
			seen[id] = true
		}
	}
	if len(got["a"]) != 5 || len(got["b"]) != 5 {
		t.Fatalf("claims %v", got)
	}
}
