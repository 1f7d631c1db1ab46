package catalog

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
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
	// ArrivalFrom and ArrivalTo drop files whose recorded arrivals all lie
	// outside them (only conversations files record them; a file without
	// is kept). A conversation's rows carry its one arrival in every run,
	// so a file dropped holds no current row in them either.
	ArrivalFrom, ArrivalTo *time.Time
	// AfterID keeps files holding an id above it (keyset cursors); MinID
	// and MaxID keep files holding an id at or above, at or below them.
	AfterID, MinID, MaxID string
	// Dates, when set, keeps only these partition dates.
	Dates []time.Time
}

// ManifestFiles lists the files of a manifest query, by date and id. The
// organization's manifest is kept in memory between commits (every page
// of the query API prunes by it); the files returned share their
// NodeCounts and CompleteClassifiers with it and must not be changed.
func (c *ManifestStore) ManifestFiles(ctx context.Context, q ManifestQuery) ([]LakeFile, error) {
	out := []LakeFile{}
	err := c.selected(ctx, q, func(f *LakeFile) { out = append(out, *f) })
	return out, err
}

// ManifestCount counts the files of a manifest query without listing
// them.
func (c *ManifestStore) ManifestCount(ctx context.Context, q ManifestQuery) (int, error) {
	n := 0
	err := c.selected(ctx, q, func(*LakeFile) { n++ })
	return n, err
}

// selected hands each file of a manifest query to fn, by date and id.
func (c *ManifestStore) selected(ctx context.Context, q ManifestQuery, fn func(*LakeFile)) error {
	read := func() ([]LakeFile, error) { return loadManifest(ctx, c.db, q.OrgID) }
	var all []LakeFile
	var err error
	if q.OrgID == "" { // every organization's (earshot sql): read, not kept
		all, err = read()
	} else {
		all, err = c.manifest.load(q.OrgID, read)
	}
	if err != nil {
		return err
	}
	var days map[time.Time]bool
	if q.Dates != nil {
		days = make(map[time.Time]bool, len(q.Dates))
		for _, d := range q.Dates {
			days[day(d)] = true
		}
	}
	from, to := day(q.From), day(q.To)
	for i := range all {
		f := &all[i]
		switch {
		case q.Table != "" && f.Table != q.Table,
			!q.From.IsZero() && f.Date.Before(from),
			!q.To.IsZero() && f.Date.After(to),
			q.InteractionFrom != nil && (f.MaxInteraction == nil || f.MaxInteraction.Before(*q.InteractionFrom)),
			q.InteractionTo != nil && (f.MinInteraction == nil || f.MinInteraction.After(*q.InteractionTo)),
			q.ArrivalFrom != nil && f.MaxArrival != nil && f.MaxArrival.Before(stamp(*q.ArrivalFrom)),
			q.ArrivalTo != nil && f.MinArrival != nil && f.MinArrival.After(stamp(*q.ArrivalTo)),
			q.AfterID != "" && f.MaxID <= q.AfterID,
			q.MinID != "" && f.MaxID < q.MinID,
			q.MaxID != "" && f.MinID > q.MaxID,
			days != nil && !days[f.Date]:
			continue
		}
		fn(f)
	}
	return nil
}

// loadManifest reads an organization's manifest ("": every one's), by
// date and id.
func loadManifest(ctx context.Context, q querier, orgID string) ([]LakeFile, error) {
	rows, err := q.QueryContext(ctx, `SELECT path, table_name, org_id, part_date, row_count, byte_count, min_id, max_id,
		min_interaction, max_interaction, node_counts, complete_classifiers, min_arrival, max_arrival FROM lake_files WHERE ? = '' OR org_id = ? ORDER BY part_date, min_id`, orgID, orgID)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []LakeFile
	for rows.Next() {
		var f LakeFile
		var nodes, complete *string
		if err := rows.Scan(&f.Path, &f.Table, &f.OrgID, &f.Date, &f.Rows, &f.Bytes, &f.MinID, &f.MaxID, &f.MinInteraction, &f.MaxInteraction,
			&nodes, &complete, &f.MinArrival, &f.MaxArrival); err != nil {
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

// keepCommitted adds files just committed to the manifests kept of their
// organizations: an ingest commit adds files and changes none, so the next
// page (and the committed batch's dashboard figures) need not read every
// file of the organization again.
func keepCommitted(kept *orgCache[[]LakeFile], files []LakeFile) {
	byOrg := map[string][]LakeFile{}
	for _, f := range files {
		byOrg[f.OrgID] = append(byOrg[f.OrgID], asLoaded(f))
	}
	for org, added := range byOrg {
		slices.SortFunc(added, manifestOrder)
		kept.change(org, func(all []LakeFile) []LakeFile { return withFiles(all, added) })
	}
}

// asLoaded is a file as loadManifest reads it back from its manifest
// entry (lakeFileRow), sharing nothing with the file it was made from.
func asLoaded(f LakeFile) LakeFile {
	f.Date, _ = time.Parse(time.DateOnly, f.Date.Format(time.DateOnly))
	f.MinInteraction, f.MaxInteraction = stampPtr(f.MinInteraction), stampPtr(f.MaxInteraction)
	f.MinArrival, f.MaxArrival = stampPtr(f.MinArrival), stampPtr(f.MaxArrival)
	f.NodeCounts = maps.Clone(f.NodeCounts)
	f.CompleteClassifiers = slices.Clone(f.CompleteClassifiers)
	return f
}

// manifestOrder is loadManifest's order: by date, then first id.
func manifestOrder(a, b LakeFile) int {
	if c := a.Date.Compare(b.Date); c != 0 {
		return c
	}
	return strings.Compare(a.MinID, b.MinID)
}

// withFiles is a new manifest of all's files and added's (both in
// manifestOrder), all left as its readers see it. A file all holds
// already (read after its commit, kept before this change) is not added
// twice.
func withFiles(all, added []LakeFile) []LakeFile {
	paths := make(map[string]bool, len(added))
	for _, f := range added {
		paths[f.Path] = true
	}
	for _, f := range all {
		delete(paths, f.Path)
	}
	out := make([]LakeFile, 0, len(all)+len(paths))
	i := 0
	for _, f := range added {
		if !paths[f.Path] {
			continue
		}
		for i < len(all) && manifestOrder(all[i], f) <= 0 {
			out = append(out, all[i])
			i++
		}
		out = append(out, f)
	}
	return append(out, all[i:]...)
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

// LakeFiles lists the manifest's files of a table for an organization and
// an inclusive range of partition dates.
func (c *ManifestStore) LakeFiles(ctx context.Context, orgID, table string, from, to time.Time) ([]LakeFile, error) {
	return c.ManifestFiles(ctx, ManifestQuery{OrgID: orgID, Table: table, From: from, To: to})
}

// Partition is one (organization, table, date) of the lake with its files.
type Partition struct {
	OrgID string
	Table string
	Date  time.Time
	Paths []string
}

// CompactionCandidates lists the partitions made of more than one file
// that are not one compaction's output: files of several runs, or of one
// run of another job (an ingest's batches write a file each). A
// compaction (a run of job compactJob) writes a large partition as several
// files itself, of its current rows in disjoint id ranges: merging them
// again would change nothing.
func (c *ManifestStore) CompactionCandidates(ctx context.Context, compactJob string) ([]Partition, error) {
	rows, err := c.db.QueryContext(ctx, `SELECT org_id, table_name, part_date, path FROM lake_files
		WHERE (org_id, table_name, part_date) IN
		      (SELECT org_id, table_name, part_date FROM lake_files GROUP BY org_id, table_name, part_date
		       HAVING count(*) > 1 AND (count(DISTINCT run_id) > 1 OR min(run_id) NOT IN (SELECT id FROM job_runs WHERE job = ?)))
		ORDER BY org_id, table_name, part_date, path`, compactJob)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []Partition{}
	for rows.Next() {
		var p Partition
		var path string
		if err := rows.Scan(&p.OrgID, &p.Table, &p.Date, &path); err != nil {
			return nil, err
		}
		p.Date = day(p.Date)
		if n := len(out); n > 0 && out[n-1].OrgID == p.OrgID && out[n-1].Table == p.Table && out[n-1].Date.Equal(p.Date) {
			out[n-1].Paths = append(out[n-1].Paths, path)
			continue
		}
		p.Paths = []string{path}
		out = append(out, p)
	}
	return out, rows.Err()
}

// completeInAll is what a compacted conversations file inherits: the
// classifiers complete in every one of the files it merges (each of its
// conversations comes from one of them). Compaction reads no results, so
// it cannot tell more.
func completeInAll(ctx context.Context, tx *sql.Tx, paths []string) ([]string, error) {
	rows, err := tx.QueryContext(ctx, `SELECT complete_classifiers FROM lake_files WHERE `+anyOf("path")+` AND table_name = ?`,
		list(paths), tableConversations)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []string
	first := true
	for rows.Next() {
		var raw *string
		if err := rows.Scan(&raw); err != nil {
			return nil, err
		}
		var list []string
		if raw != nil {
			if err := json.Unmarshal([]byte(*raw), &list); err != nil {
				return nil, err
			}
		}
		if first {
			out, first = list, false
			continue
		}
		out = slices.DeleteFunc(out, func(id string) bool { return !slices.Contains(list, id) })
	}
	if out == nil {
		out = []string{}
	}
	return out, rows.Err()
}

// ErrManifestChanged: the files a compaction read are no longer all in the
// manifest (another compaction swapped them); its output is discarded.
var ErrManifestChanged = errors.New("the partition's files changed during compaction")

// SwapLakeFiles replaces files in the manifest with their compacted
// successors in one transaction: readers see either the old files or the
// new ones, never both or neither.
func (c *ManifestStore) SwapLakeFiles(ctx context.Context, runID string, old []string, replacements []LakeFile) error {
	defer c.invalidateFor(replacements)
	return c.inTx(ctx, func(tx *sql.Tx) error { return c.swap(ctx, tx, runID, old, replacements) })
}

// invalidateFor drops the cached manifests a swap of replacements changes.
func (c *ManifestStore) invalidateFor(replacements []LakeFile) {
	if len(replacements) == 0 {
		c.manifest.invalidateAll() // whose the old files were is not known here
		return
	}
	c.manifest.invalidate(orgsOf(replacements)...) // a partition's successors are its organization's
}

// swap is SwapLakeFiles in the caller's transaction.
func (c *ManifestStore) swap(ctx context.Context, tx *sql.Tx, runID string, old []string, replacements []LakeFile) error {
	var n int
	if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM lake_files WHERE `+anyOf("path"), list(old)).Scan(&n); err != nil {
		return err
	}
	if n != len(old) {
		return ErrManifestChanged
	}
	inherited, err := completeInAll(ctx, tx, old)
	if err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, `DELETE FROM lake_files WHERE `+anyOf("path"), list(old)); err != nil {
		return err
	}
	t := now()
	if _, err := tx.ExecContext(ctx, `INSERT INTO retired_lake_files (path, retired_on)
		SELECT value, ? FROM json_each(?) WHERE true ON CONFLICT DO NOTHING`, t, list(old)); err != nil { // WHERE: SQLite reads ON as a join's otherwise
		return err
	}
	var rows [][]any
	for _, f := range replacements {
		if f.Table == tableConversations && len(old) > 0 {
			f.CompleteClassifiers = inherited
		}
		rows = append(rows, lakeFileRow(f, runID, t))
	}
	if err := c.bulkInsert(ctx, tx, "lake_files", lakeFileColumns, rows); err != nil {
		return err
	}
	return c.changed(ctx, tx, domainManifest, orgsOf(replacements)...)
}

// AddRunFiles lists a running job's new files in the manifest and records
// its counts in the same transaction; done records the run succeeded there
// too, so that a run whose work all committed is never taken for an
// interrupted one.
func (c *ManifestStore) AddRunFiles(ctx context.Context, runID string, files []LakeFile, counts map[string]int64, done bool) error {
	defer c.invalidateFor(files)
	data, err := json.Marshal(counts)
	if err != nil {
		return err
	}
	return c.inTx(ctx, func(tx *sql.Tx) error {
		if err := c.swap(ctx, tx, runID, nil, files); err != nil {
			return err
		}
		if done {
			_, err = tx.ExecContext(ctx, `UPDATE job_runs SET counts = ?, status = 'succeeded', ended_on = ? WHERE id = ?`, string(data), now(), runID)
		} else {
			_, err = tx.ExecContext(ctx, `UPDATE job_runs SET counts = ? WHERE id = ? AND status = 'running'`, string(data), runID)
		}
		return err
	})
}

// AddLakeFiles lists new files in the manifest in one transaction (a
// reclassification's results: no status moves).
func (c *ManifestStore) AddLakeFiles(ctx context.Context, runID string, files []LakeFile) error {
	return c.SwapLakeFiles(ctx, runID, nil, files)
}

// LakePaths lists every file of the manifest, and the retired files
// compaction has not deleted yet: the lake files that are no orphans.
func (c *ManifestStore) LakePaths(ctx context.Context) ([]string, error) {
	return queryStrings(ctx, c.db, `SELECT path FROM lake_files UNION SELECT path FROM retired_lake_files ORDER BY 1`)
}

// RetiredBy lists the files compaction retired at or before t.
func (c *ManifestStore) RetiredBy(ctx context.Context, t time.Time) ([]string, error) {
	return queryStrings(ctx, c.db, `SELECT path FROM retired_lake_files WHERE retired_on <= ? ORDER BY path`, stamp(t))
}

// ForgetRetired forgets retired files once they are deleted.
func (c *ManifestStore) ForgetRetired(ctx context.Context, paths []string) error {
	_, err := c.exec(ctx, `DELETE FROM retired_lake_files WHERE `+anyOf("path"), list(paths))
	return err
}

const tableConversations = "conversations"

// goccy/go-json builds a type's decoder on first use without a lock, and
// concurrent first uses can crash (github.com/goccy/go-json issue 474):
// the manifest's list types are decoded once at start, before any
// concurrent read.
func init() {
	var counts map[string]int64
	var ids []string
	if json.Unmarshal([]byte(`{"n":1}`), &counts) != nil || json.Unmarshal([]byte(`["x"]`), &ids) != nil {
		panic("catalog: priming the JSON decoders")
	}
}
