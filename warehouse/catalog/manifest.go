package catalog

import (
	"context"
	"fmt"
	"time"

	json "github.com/goccy/go-json"
)

// ManifestStore keeps the lake's manifest: which Parquet files hold which
// organization's rows of which table and day (kept in memory between
// changes).
type ManifestStore struct {
	handle
	manifest *orgCache[[]LakeFile]
}

// ManifestQuery selects files in the manifest, usually of one table of one
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
}

// ManifestFiles lists the files of a manifest query, by date and id. The
// organization's manifest is kept in memory between commits (every page
// of the query API prunes by it); the files returned share their
// NodeCounts and CompleteClassifiers with it and must not be changed.
func (c *ManifestStore) ManifestFiles(ctx context.Context, q ManifestQuery) ([]LakeFile, error) {
	read := func() ([]LakeFile, error) { return loadManifest(ctx, c.db, q.OrgID) }
	var all []LakeFile
	var err error
	if q.OrgID == "" { // every organization's (earshot sql): read, not kept
		all, err = read()
	} else {
		all, err = c.manifest.load(q.OrgID, read)
	}
	if err != nil {
		return nil, err
	}
	var days map[time.Time]bool
	if q.Dates != nil {
		days = make(map[time.Time]bool, len(q.Dates))
		for _, d := range q.Dates {
			days[day(d)] = true
		}
	}
	from, to := day(q.From), day(q.To)
	out := []LakeFile{}
	for _, f := range all {
		switch {
		case q.Table != "" && f.Table != q.Table,
			!q.From.IsZero() && f.Date.Before(from),
			!q.To.IsZero() && f.Date.After(to),
			q.InteractionFrom != nil && (f.MaxInteraction == nil || f.MaxInteraction.Before(*q.InteractionFrom)),
			q.InteractionTo != nil && (f.MinInteraction == nil || f.MinInteraction.After(*q.InteractionTo)),
			q.AfterID != "" && f.MaxID <= q.AfterID,
			q.MaxID != "" && f.MinID > q.MaxID,
			days != nil && !days[f.Date]:
			continue
		}
		out = append(out, f)
	}
	return out, nil
}

// loadManifest reads an organization's manifest ("": every one's), by
// date and id.
func loadManifest(ctx context.Context, q querier, orgID string) ([]LakeFile, error) {
	rows, err := q.QueryContext(ctx, `SELECT path, table_name, org_id, part_date, row_count, byte_count, min_id, max_id,
		min_interaction, max_interaction, node_counts, complete_classifiers FROM lake_files WHERE ? = '' OR org_id = ? ORDER BY part_date, min_id`, orgID, orgID)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []LakeFile
	for rows.Next() {
		var f LakeFile
		var nodes, complete *string
		if err := rows.Scan(&f.Path, &f.Table, &f.OrgID, &f.Date, &f.Rows, &f.Bytes, &f.MinID, &f.MaxID, &f.MinInteraction, &f.MaxInteraction,
			&nodes, &complete); err != nil {
			return nil, err
		}
		f.Date = day(f.Date)
		if nodes != nil {
			if err := json.Unmarshal([]byte(*nodes), &f.NodeCounts); err != nil {
				return nil, fmt.Errorf("manifest entry %s: node counts: %w", f.Path, err)
			}
		}
		if complete != nil {
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
