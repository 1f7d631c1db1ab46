package catalog

import (
	"context"
	"database/sql"
	"errors"
	"testing"
	"time"

	"github.com/earshot/earshot/internal/lab/cputime"
)

// TestEachRowStopsBetweenRows: the rows' statements get a context the
// driver cannot see canceled (so it runs them on the caller's goroutine),
// and a canceled ctx stops the loop before the next row.
func TestEachRowStopsBetweenRows(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	var ran int
	err := eachRow(ctx, 10, func(rowCtx context.Context, i int) error {
		if rowCtx.Done() != nil {
			t.Errorf("row %d: its context can be canceled", i)
		}
		ran++
		if i == 2 {
			cancel()
		}
		return nil
	})
	if !errors.Is(err, context.Canceled) || ran != 3 {
		t.Errorf("ran %d rows, then %v; want 3, then context.Canceled", ran, err)
	}
	failed := errors.New("row failed")
	ran = 0
	err = eachRow(context.Background(), 10, func(_ context.Context, i int) error {
		ran++
		if i == 4 {
			return failed
		}
		return nil
	})
	if !errors.Is(err, failed) || ran != 5 {
		t.Errorf("ran %d rows, then %v; want 5, then the row's error", ran, err)
	}
}

// BenchmarkRowByRow: 2,000 chat records inserted row by row in one
// transaction on SQLite under a context that can be canceled (as a job's
// is), each row's statement run by eachRow, beside the baseline of each
// run with that context (the driver then runs each on a goroutine of its
// own); the CPU a row took, all the process's threads counted.
func BenchmarkRowByRow(b *testing.B) {
	const n = 2000
	for _, mode := range []struct {
		name string
		run  func(ctx context.Context, stmt *sql.Stmt, rows [][]any) error
	}{
		{"each-row", func(ctx context.Context, stmt *sql.Stmt, rows [][]any) error {
			return eachRow(ctx, len(rows), func(rowCtx context.Context, i int) error {
				_, err := stmt.ExecContext(rowCtx, rows[i]...)
				return err
			})
		}},
		{"baseline-cancelable-context", func(ctx context.Context, stmt *sql.Stmt, rows [][]any) error {
			for _, r := range rows {
				if _, err := stmt.ExecContext(ctx, r...); err != nil {
					return err
				}
			}
			return nil
		}},
	} {
		b.Run(mode.name, func(b *testing.B) {
			c := openTest(b)
			if c.postgres {
				b.Skip("PostgreSQL's rows go many to a statement")
			}
			ctx := jobContext(b)
			org, _ := c.Orgs.CreateOrganization(ctx, "acme")
			var cpu time.Duration
			for b.Loop() {
				b.StopTimer()
				now := time.Now().UTC()
				rows := make([][]any, n)
				for i := range rows {
					rows[i] = interactionRow(Interaction{ID: NewID(), OrgID: org.ID, MediaType: MediaProcessedChat, Status: StatusReadyToSample,
						FileName: "bench.tar/" + NewID() + ".json", ArrivedOn: now, LocaleID: 1033, Source: "file"}, now, nil)
				}
				b.StartTimer()
				start := cputime.Self()
				err := c.inTx(ctx, func(tx *sql.Tx) error {
					stmt, err := prepareInsert(ctx, tx, "interactions", interactionInsertColumns)
					if err != nil {
						return err
					}
					defer stmt.Close()
					return mode.run(ctx, stmt, rows)
				})
				cpu += cputime.Self() - start
				if err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(cpu.Nanoseconds())/float64(n*b.N), "cpu-ns/row")
		})
	}
}
