package catalog

import (
	"context"
	"fmt"

	"strings"
	"time"

	json "github.com/goccy/go-json"
)

// ManifestQuery selects the manifest's files, usually of one table of one
// organization: the pruning every lake read does before DuckDB opens a
// file. Zero fields do not filter.
type ManifestQuery struct {
	OrgID, Table string
	// From and To bound the partition (arrival) dates, inclusive.
	From, To time.Time
	// InteractionFrom and InteractionTo keep files whose interaction dates
	// overlap them (only conversations files record them).
	InteractionFrom, InteractionTo *time.Time
	// AfterID keeps files holding an id above it (keyset cursors); MaxID
	// keeps files holding an id at or below it.
	AfterID, MaxID string
	// Dates, when set, keeps only these partition dates.
	Dates []time.Time
	// Counts reads the conversations files' NodeCounts and
	// CompleteClassifiers too (only counting needs them: pages do not
	// decode them).
	Counts bool
}

// ManifestFiles lists the files of a manifest query, by date and id.
func (c *Catalog) ManifestFiles(ctx context.Context, q ManifestQuery) ([]LakeFile, error) {
	where := []string{"true"}
	var args []any
	add := func(cond string, a ...any) {
		where = append(where, cond)
		args = append(args, a...)
	}
	if q.OrgID != "" {
		add("org_id = ?", q.OrgID)
	}
	if q.Table != "" {
		add("table_name = ?", q.Table)
	}
	if !q.From.IsZero() {
		add("part_date >= ?", day(q.From))
	}
	if !q.To.IsZero() {
		add("part_date <= ?", day(q.To))
	}
	if q.InteractionFrom != nil {
		add("max_interaction >= ?", q.InteractionFrom.UTC())
	}
	if q.InteractionTo != nil {
		add("min_interaction <= ?", q.InteractionTo.UTC())
	}
	if q.AfterID != "" {
		add("max_id > ?", q.AfterID)
	}
	if q.MaxID != "" {
		add("min_id <= ?", q.MaxID)
	}
	if q.Dates != nil {
		days := make([]string, len(q.Dates))
		for i, d := range q.Dates {
			days[i] = d.UTC().Format(time.DateOnly)
		}
		add("list_contains(?, strftime(part_date, '%Y-%m-%d'))", days)
	}
	rows, err := c.db.QueryContext(ctx, `SELECT path, table_name, org_id, part_date, row_count, byte_count, min_id, max_id,
		min_interaction, max_interaction, node_counts, complete_classifiers FROM lake_files WHERE `+strings.Join(where, " AND ")+` ORDER BY part_date, min_id`, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []LakeFile{}
	for rows.Next() {
		var f LakeFile
		var nodes, complete *string
		if err := rows.Scan(&f.Path, &f.Table, &f.OrgID, &f.Date, &f.Rows, &f.Bytes, &f.MinID, &f.MaxID, &f.MinInteraction, &f.MaxInteraction,
			&nodes, &complete); err != nil {
			return nil, err
		}
		if nodes != nil && q.Counts {
			if err := json.Unmarshal([]byte(*nodes), &f.NodeCounts); err != nil {
				return nil, fmt.Errorf("manifest entry %s: node counts: %w", f.Path, err)
			}
		}
		if complete != nil && q.Counts {
			if err := json.Unmarshal([]byte(*complete), &f.CompleteClassifiers); err != nil {
				return nil, fmt.Errorf("manifest entry %s: complete classifiers: %w", f.Path, err)
			}
		}
		out = append(out, f)
	}
	return out, rows.Err()
}

// Paths are the files' manifest paths.
func Paths(files []LakeFile) []string {
	out := make([]string, len(files))
	for i, f := range files {
		out[i] = f.Path
	}
	return out
}

// day is the UTC midnight of t's day, for comparisons with DATE columns.
func day(t time.Time) time.Time {
	return t.UTC().Truncate(24 * time.Hour)
}
