package catalog

import (
	"context"
	"database/sql"
	"slices"
	"time"
)

// KeptFigures are a dashboard's figures of one set of an organization's
// lake files of a day, named by their signature. The catalog keeps them
// as the results reader wrote them (warehouse/results reads them).
type KeptFigures struct {
	Date      time.Time
	Signature string
	Figures   string
}

// KeptFigures lists the figures kept for an organization's days.
func (c *ManifestStore) KeptFigures(ctx context.Context, orgID string, days []time.Time) ([]KeptFigures, error) {
	if len(days) == 0 {
		return nil, nil
	}
	wanted := make(map[time.Time]bool, len(days))
	for _, d := range days {
		wanted[day(d)] = true
	}
	from, to := dayRange(days)
	rows, err := c.db.QueryContext(ctx, `SELECT part_date, signature, figures FROM lake_figures
		WHERE org_id = ? AND part_date BETWEEN ? AND ?`, orgID, from, to)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []KeptFigures
	for rows.Next() {
		var k KeptFigures
		if err := rows.Scan(&k.Date, &k.Signature, &k.Figures); err != nil {
			return nil, err
		}
		if k.Date = day(k.Date); wanted[k.Date] {
			out = append(out, k)
		}
	}
	return out, rows.Err()
}

// KeptSignatures are those of signatures whose figures are kept for an
// organization's day: a commit asks for its own clusters' alone, so the
// question does not grow with the day's other clusters.
func (c *ManifestStore) KeptSignatures(ctx context.Context, orgID string, date time.Time, signatures []string) ([]string, error) {
	if len(signatures) == 0 {
		return nil, nil
	}
	return queryStrings(ctx, c.db, `SELECT signature FROM lake_figures WHERE org_id = ? AND part_date = ? AND `+anyOf("signature"),
		orgID, day(date).Format(time.DateOnly), list(signatures))
}

// dayRange is the first and last of days, as the catalog's dates.
func dayRange(days []time.Time) (from, to string) {
	return day(slices.MinFunc(days, time.Time.Compare)).Format(time.DateOnly), day(slices.MaxFunc(days, time.Time.Compare)).Format(time.DateOnly)
}

// Stale names the kept figures of a day that a keep drops, those of
// clusters that are no longer the day's: of every cluster but the current
// ones, where the keeper knows them all (AllBut: the day's current
// signatures), and of former clusters that the kept ones joined (Former).
type Stale struct {
	AllBut []string // nil: the day's clusters are not all known
	Former []string
}

// KeepFigures keeps figures of an organization's day (replacing those of
// the same signature) and drops the day's stale figures.
func (c *ManifestStore) KeepFigures(ctx context.Context, orgID string, date time.Time, stale Stale, kept []KeptFigures) error {
	d := day(date).Format(time.DateOnly)
	return c.inTx(ctx, func(tx *sql.Tx) error {
		if stale.AllBut != nil {
			if _, err := tx.ExecContext(ctx, `DELETE FROM lake_figures WHERE org_id = ? AND part_date = ? AND NOT `+anyOf("signature"),
				orgID, d, list(stale.AllBut)); err != nil {
				return err
			}
		}
		if len(stale.Former) > 0 {
			if _, err := tx.ExecContext(ctx, `DELETE FROM lake_figures WHERE org_id = ? AND part_date = ? AND `+anyOf("signature"),
				orgID, d, list(stale.Former)); err != nil {
				return err
			}
		}
		t := now()
		for _, k := range kept {
			if _, err := tx.ExecContext(ctx, `INSERT INTO lake_figures (org_id, part_date, signature, figures, created_on)
				VALUES (?, ?, ?, ?, ?)
				ON CONFLICT (org_id, part_date, signature) DO UPDATE SET figures = excluded.figures, created_on = excluded.created_on`,
				orgID, d, k.Signature, k.Figures, t); err != nil {
				return err
			}
		}
		return nil
	})
}
